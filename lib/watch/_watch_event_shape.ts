/**
 * Shape checks for decoded watch lines, private to the decoder.
 *
 * `isWatchEvent` is the hot path (one call per event): a few `typeof` checks and string compares, no
 * allocation. `eventProblem` runs only when it says no, to explain why; both accept exactly the same values.
 *
 * @module
 */

/** True for a plain JSON object (not null, not an array). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when `value` has the shape of a watch event; `eventProblem` says why not. */
export function isWatchEvent(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const { type, object } = value as { type?: unknown; object?: unknown };
  if (typeof object !== "object" || object === null || Array.isArray(object)) return false;
  if (type === "ERROR") return true;
  if (type !== "MODIFIED" && type !== "ADDED" && type !== "DELETED" && type !== "BOOKMARK") return false;
  const { metadata } = object as { metadata?: unknown };
  return typeof metadata === "object" && metadata !== null && !Array.isArray(metadata);
}

/** Describes what keeps `value` from being a watch event, or undefined when it is one. */
export function eventProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "not a JSON object";
  const { type, object } = value;
  if (typeof type !== "string") return `field "type" is missing`;
  if (!isObject(object)) return `field "object" is missing or not an object`;
  switch (type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED":
    case "BOOKMARK":
      return isObject(object.metadata) ? undefined : `field "object.metadata" is missing`;
    case "ERROR":
      return undefined;
    default:
      return `unknown type ${JSON.stringify(type.slice(0, 40))}`;
  }
}
