/**
 * `T` with every property and array read-only, all the way down. Informer stores hand out cached objects
 * as `DeepReadonly<T>`: they are shared by every reader, so writing to one is a compile error (copy it
 * first, e.g. with `structuredClone`, to build a changed version). A `T` is assignable to
 * `DeepReadonly<T>`, so functions that only read should take this type.
 */
export type DeepReadonly<T> = unknown extends T ? T
  : T extends (...args: never[]) => unknown ? T
  : T extends string | number | boolean | bigint | symbol | null | undefined ? T
  : { readonly [K in keyof T]: DeepReadonly<T[K]> };
