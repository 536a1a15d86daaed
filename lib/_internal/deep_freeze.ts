/**
 * Freezes `value` and everything reachable from it, in place, and returns it. Writing to a frozen object
 * throws a TypeError in modules (strict mode), so a test that mutates a cached object through a cast fails
 * at the mutation instead of corrupting the cache silently.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
