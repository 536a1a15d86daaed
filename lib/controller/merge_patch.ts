/**
 * The JSON merge patch (RFC 7396) that turns `from` into `to`: changed and new fields with their new value,
 * removed fields as `null`, objects diffed recursively, arrays and scalars replaced whole. Undefined when
 * they are equal. Values must be JSON data.
 */
export function mergePatch(from: unknown, to: unknown): unknown {
  if (!isRecord(from) || !isRecord(to)) return jsonEqual(from, to) ? undefined : to;
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    const sub = mergePatch(from[key], value);
    if (sub !== undefined) patch[key] = sub;
  }
  for (const key of Object.keys(from)) {
    if (from[key] !== undefined && (!(key in to) || to[key] === undefined)) patch[key] = null;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/** Deep equality of JSON data (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if (!jsonEqual(a[key], b[key])) return false;
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
