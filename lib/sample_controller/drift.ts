/**
 * True when every field of `desired` is present in `live` with the same value — i.e. applying `desired`
 * would change nothing we own. Maps are compared key by key (extra live keys are others' business or server
 * defaults); for lists, every desired element must be matched by some live element (our lists are keyed:
 * containers by name, ownerReferences by uid), so foreign additions do not count as drift.
 */
export function containsFields(live: unknown, desired: unknown): boolean {
  if (Array.isArray(desired)) {
    if (!Array.isArray(live)) return false;
    return desired.every((want) => live.some((have) => containsFields(have, want)));
  }
  if (isRecord(desired)) {
    if (!isRecord(live)) return false;
    return Object.entries(desired).every(([key, want]) =>
      want === undefined || containsFields(live[key], want)
    );
  }
  return Object.is(live, desired);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
