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
 */
export function mutableCopy<T>(object: T): DeepMutable<T> {
  return structuredClone(object) as DeepMutable<T>;
}
