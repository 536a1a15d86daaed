/**
 * The `default` branch of an exhaustive `switch` over a union: it does not compile while a member is
 * unmatched, and throws at run time if a value outside the type arrives anyway (e.g. from the wire).
 */
export function assertNever(value: never, what = "value"): never {
  throw new TypeError(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
