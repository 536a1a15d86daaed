/** Deep equality of JSON data (key order ignored), by a loop: any depth. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const pairs: [unknown, unknown][] = [[a, b]];
  while (pairs.length > 0) {
    const [x, y] = pairs.pop()!;
    if (Object.is(x, y)) continue;
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pairs.push([x[i], y[i]]);
      continue;
    }
    if (!isRecord(x) || !isRecord(y)) return false;
    for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) pairs.push([x[key], y[key]]);
  }
  return true;
}

/** True for a JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
