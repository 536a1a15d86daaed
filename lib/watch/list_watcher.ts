import type { KubeObject, ObjectList, ResourceRef } from "../resources/object.ts";
import type { ListOptions, RawWatchOptions } from "../client/types.ts";

/**
 * The two calls the watcher needs from a client. `KubeClient` satisfies it structurally, and tests
 * script it in memory.
 *
 * `watch()` resolves with the raw body of a 200 answer and rejects with an `ApiError` for any other
 * status (e.g. 410 Gone when the resourceVersion is too old). Cancelling the returned stream must
 * close the underlying connection. `list()` should apply `opts.transformItem` to each item as it decodes
 * it, as `KubeClient` does; an implementation that ignores it costs memory, not correctness (the
 * informer transforms what comes untransformed).
 @experimental Sharded list and watch may add members.
 */
export interface ListWatcher {
  /** Lists one page. */
  list<T extends KubeObject>(ref: ResourceRef<T>, opts: ListOptions): Promise<ObjectList<T>>;
  /** Opens a watch and returns its raw body (newline-delimited JSON watch events). */
  watch(ref: ResourceRef, opts: RawWatchOptions): Promise<ReadableStream<Uint8Array>>;
}
