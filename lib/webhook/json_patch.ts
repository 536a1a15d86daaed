/**
 * RFC 6902 JSON Patch from two JSON documents, so a mutating webhook returns the object it wants and never
 * writes a patch.
 * @module
 */

/** A JSON value as `JSON.parse` returns it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One RFC 6902 operation; `diffJson` emits only these three. */
export type JsonPatchOperation =
  | { readonly op: "add"; readonly path: string; readonly value: JsonValue }
  | { readonly op: "replace"; readonly path: string; readonly value: JsonValue }
  | { readonly op: "remove"; readonly path: string };

/**
 * The operations that turn `from` into `to`, both plain JSON (what `JSON.parse` returns: objects, arrays,
 * strings, finite numbers, booleans, null). Applied in order by any RFC 6902 implementation (kube-apiserver
 * uses evanphx/json-patch) to `from`, they give a document equal to `to`; equal documents give `[]`.
 *
 * Objects are compared member by member (`remove` for members only in `from`, `add` for members only in
 * `to`), recursively. Arrays are compared index by index over their common length; extra elements of `to`
 * are added at the end, extra elements of `from` removed from the end backwards, so no index shifts under a
 * later operation; when one `replace` of the whole array is shorter (say, after an element was inserted at
 * the front), that is sent instead. Any other change is a `replace` of that value.
 * Member names are escaped as RFC 6901 says (`~` as `~0`, `/` as `~1`).
 */
export function diffJson(from: JsonValue, to: JsonValue): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diffInto(ops, "", from, to);
  return ops;
}

function diffInto(ops: JsonPatchOperation[], path: string, from: JsonValue, to: JsonValue): void {
  if (isObject(from) && isObject(to)) {
    for (const key of Object.keys(from)) {
      if (!Object.hasOwn(to, key)) ops.push({ op: "remove", path: `${path}/${escapeKey(key)}` });
    }
    for (const [key, value] of Object.entries(to)) {
      const at = `${path}/${escapeKey(key)}`;
      if (Object.hasOwn(from, key)) diffInto(ops, at, from[key]!, value);
      else ops.push({ op: "add", path: at, value });
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const elementOps: JsonPatchOperation[] = [];
    const common = Math.min(from.length, to.length);
    for (let i = 0; i < common; i++) diffInto(elementOps, `${path}/${i}`, from[i]!, to[i]!);
    for (let i = common; i < to.length; i++) {
      elementOps.push({ op: "add", path: `${path}/${i}`, value: to[i]! });
    }
    for (let i = from.length - 1; i >= to.length; i--) {
      elementOps.push({ op: "remove", path: `${path}/${i}` });
    }
    const whole: JsonPatchOperation = { op: "replace", path, value: to };
    const shorter = elementOps.length > 1 && JSON.stringify(elementOps).length > JSON.stringify(whole).length;
    if (shorter) ops.push(whole);
    else ops.push(...elementOps);
    return;
  }
  if (!jsonEqual(from, to)) ops.push({ op: "replace", path, value: to });
}

/** Deep equality of two JSON values (member order does not matter). */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((value, i) => jsonEqual(value, b[i]!));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key]!, b[key]!));
  }
  return false;
}

/** A JSON Pointer reference token (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapeKey(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
