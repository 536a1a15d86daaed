/**
 * About how many characters `JSON.stringify(value)` would have: a walk that adds up key and string
 * lengths, punctuation and number digits, without building the text. What an informer reports as the
 * bytes its cache holds (`kubeloop_informer_cache_bytes`).
 *
 * Why this estimate: it measures the objects as cached (after managedFields are stripped and transforms
 * applied), which the length of the wire bytes does not (managedFields alone are 20–30 % of those); and it
 * is cheaper than building the text: on 1,000 ConfigMaps of bench/peers/configmaps.ts (medians of 200
 * rounds, five runs) the walk took 5–9 % of the time `JSON.parse` of the same objects took,
 * `JSON.stringify(…).length` 14–26 %, and it came within 0.5 % of that length. Escapes count as one character and a string's length is
 * in UTF-16 code units, so non-ASCII text reads a little low; it is not the objects' heap size (V8 needs
 * several times that).
 */
export function jsonSize(value: unknown): number {
  return sizeOf(value, 0);
}

/**
 * Past this depth the walk goes on by loop: a custom resource may nest as deep as the API server's decoder
 * allows (10,000 levels), which recursion would not survive. Recursion is kept above it: it measured ~1.4×
 * faster than the loop on ordinary objects.
 */
const MAX_RECURSION = 64;

function sizeOf(value: unknown, depth: number): number {
  switch (typeof value) {
    case "string":
      return value.length + 2;
    case "number":
      return numberSize(value);
    case "boolean":
      return value ? 4 : 5;
    case "object": {
      if (value === null) return 4;
      if (depth >= MAX_RECURSION) return deepSize(value);
      if (Array.isArray(value)) {
        if (value.length === 0) return 2;
        let n = 1 + value.length; // brackets and commas
        for (const item of value) n += sizeOf(item, depth + 1);
        return n;
      }
      let n = 1; // braces, less the comma the last field does not have
      const record = value as Record<string, unknown>;
      for (const key in record) {
        const field = record[key];
        if (field === undefined) continue; // JSON.stringify leaves such fields out
        n += key.length + 4 + sizeOf(field, depth + 1); // quotes, colon, comma
      }
      return n === 1 ? 2 : n;
    }
    default:
      return 0;
  }
}

/** `sizeOf` by loop over a stack of pending values, for any depth. */
function deepSize(value: unknown): number {
  let n = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== "object" || next === null) {
      n += sizeOf(next, 0); // a scalar: no recursion
      continue;
    }
    if (Array.isArray(next)) {
      n += next.length === 0 ? 2 : 1 + next.length;
      for (const item of next) pending.push(item);
      continue;
    }
    let fields = 0;
    const record = next as Record<string, unknown>;
    for (const key in record) {
      const field = record[key];
      if (field === undefined) continue;
      fields++;
      n += key.length + 4;
      pending.push(field);
    }
    n += fields === 0 ? 2 : 1;
  }
  return n;
}

/** Digits of a small non-negative integer; 10 for anything else (most numbers in objects are small). */
function numberSize(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n >= 1e9) return 10;
  let digits = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  return digits;
}
