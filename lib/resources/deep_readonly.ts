/**
 * `T` with every property and array read-only, all the way down. Informer stores hand out cached objects
 * as `DeepReadonly<T>`: they are shared by every reader, so writing to one is a compile error (take a
 * {@linkcode mutableCopy} to build a changed version). A `T` is assignable to `DeepReadonly<T>`, so
 * functions that only read should take this type.
 */
export type DeepReadonly<T> = unknown extends T ? T
  : T extends (...args: never[]) => unknown ? T
  : T extends string | number | boolean | bigint | symbol | null | undefined ? T
  : { readonly [K in keyof T]: DeepReadonly<T[K]> };

/** `T` with every `readonly` removed, all the way down: the inverse of {@linkcode DeepReadonly}. */
export type DeepMutable<T> = unknown extends T ? T
  : T extends (...args: never[]) => unknown ? T
  : T extends string | number | boolean | bigint | symbol | null | undefined ? T
  : { -readonly [K in keyof T]: DeepMutable<T[K]> };

/**
 * A deep copy of a (cached, read-only) object that may be changed: the way to build a new version of an
 * object read from a store, e.g. `const next = mutableCopy(store.get(key)!); next.data = {...}`.
 *
 * JSON data (plain objects, arrays, primitives: what the API server sends) is copied with a loop, not by
 * recursion, so no depth is too deep: a custom resource with `x-kubernetes-preserve-unknown-fields` may nest
 * as deep as the API server's JSON decoder allows (10,000 levels), and `structuredClone` ran out of stack at
 * about 2,700. A `__proto__` key stays data, shared references and cycles are kept as they were, and any
 * other object (a Date, a Map) is copied by `structuredClone`.
 */
export function mutableCopy<T>(object: T): DeepMutable<T> {
  return copyJson(object) as DeepMutable<T>;
}

function copyJson(value: unknown): unknown {
  const copies = new Map<object, unknown>();
  const pending: [source: object, copy: Record<string, unknown> | unknown[]][] = [];
  const copyOf = (v: unknown): unknown => {
    if (typeof v === "function" || typeof v === "symbol") return structuredClone(v); // throws, as it did
    if (typeof v !== "object" || v === null) return v;
    const known = copies.get(v);
    if (known !== undefined) return known;
    const proto = Object.getPrototypeOf(v);
    const shell = Array.isArray(v)
      ? new Array<unknown>(v.length)
      : proto === Object.prototype || proto === null
      ? {}
      : undefined;
    if (shell === undefined) {
      const cloned: unknown = structuredClone(v);
      copies.set(v, cloned);
      return cloned;
    }
    copies.set(v, shell);
    pending.push([v, shell]);
    return shell;
  };
  const root = copyOf(value);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [source, copy] = next;
    if (Array.isArray(copy)) {
      const items = source as unknown[];
      for (let i = 0; i < items.length; i++) copy[i] = copyOf(items[i]);
      continue;
    }
    const fields = source as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      const item = copyOf(fields[key]);
      // Assigning to "__proto__" would set the copy's prototype instead of a field.
      if (key === "__proto__") {
        Object.defineProperty(copy, key, {
          value: item,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else copy[key] = item;
    }
  }
  return root;
}
