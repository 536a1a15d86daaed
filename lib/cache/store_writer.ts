import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject } from "../resources/object.ts";
import type { WatcherEvent } from "../watch/watcher_event.ts";
import { assertNever } from "../_internal/assert_never.ts";
import { objectKey } from "../client/paths.ts";
import type { IndexedStore } from "./store.ts";

/** A change to the cache, as handlers see it (the objects are the cached, read-only ones). */
export type StoreChange<T extends KubeObject> =
  | { type: "add"; object: DeepReadonly<T> }
  | { type: "update"; oldObject: DeepReadonly<T>; object: DeepReadonly<T> }
  /**
   * `finalStateUnknown`: the object vanished between two lists, so the delete itself was missed and
   * `object` is the last state we knew, not the final one.
   */
  | { type: "delete"; object: DeepReadonly<T>; finalStateUnknown: boolean };

/**
 * Applies watcher events to an {@linkcode IndexedStore} and reports what changed.
 *
 * - `init` … `initApply` … `initDone`: the list is buffered and swapped in at `initDone` in one
 *   synchronous step, so readers never see a half-listed cache. The change set is computed against
 *   the previous content: new keys are adds, keys whose resourceVersion changed are updates, keys
 *   that vanished are deletes with `finalStateUnknown: true`; unchanged objects produce nothing.
 * - `apply` / `delete`: applied at once. An `apply` with the resourceVersion already cached is
 *   ignored, so a replayed event is not delivered twice.
 * - `error`: ignored here (the informer logs and counts it).
 */
export class StoreWriter<T extends KubeObject> {
  readonly #store: IndexedStore<T>;
  #buffer: Map<string, DeepReadonly<T>> | undefined;
  #synced = false;
  #resolveReady!: () => void;
  readonly #ready: Promise<void>;

  /** Creates a writer for `store`; the store should be empty and written only through this writer. */
  constructor(store: IndexedStore<T>) {
    this.#store = store;
    this.#ready = new Promise((resolve) => this.#resolveReady = resolve);
  }

  /** True once the first full list has been swapped in. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves after the first full sync; rejects with `signal.reason` if `signal` aborts first. */
  ready(signal?: AbortSignal): Promise<void> {
    if (this.#synced || !signal) return this.#ready;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#ready.then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  }

  /** Applies one event; returns the changes it made, in order. */
  apply(event: WatcherEvent<T>): StoreChange<T>[] {
    switch (event.type) {
      case "init":
        this.#buffer = new Map();
        return [];
      case "initApply":
        (this.#buffer ??= new Map()).set(objectKey(event.object), cached(event.object));
        return [];
      case "initDone":
        return this.#swap();
      case "apply": {
        const key = objectKey(event.object);
        const old = this.#store.get(key);
        const object = cached(event.object);
        if (old && sameVersion(old, object)) return [];
        this.#store.set(key, object);
        return [old ? { type: "update", oldObject: old, object } : { type: "add", object }];
      }
      case "delete": {
        const old = this.#store.delete(objectKey(event.object));
        return old ? [{ type: "delete", object: cached(event.object), finalStateUnknown: false }] : [];
      }
      case "error":
        return [];
      default:
        return assertNever(event, "watcher event");
    }
  }

  #swap(): StoreChange<T>[] {
    const next = this.#buffer ?? new Map<string, DeepReadonly<T>>();
    this.#buffer = undefined;
    const changes: StoreChange<T>[] = [];
    const previous = new Map<string, DeepReadonly<T>>();
    for (const key of this.#store.keys()) previous.set(key, this.#store.get(key)!);
    for (const [key, object] of next) {
      const old = previous.get(key);
      if (!old) changes.push({ type: "add", object });
      else if (!sameVersion(old, object)) changes.push({ type: "update", oldObject: old, object });
      else next.set(key, old); // keep the instance readers may already hold
    }
    for (const [key, old] of previous) {
      if (!next.has(key)) changes.push({ type: "delete", object: old, finalStateUnknown: true });
    }
    this.#store.replace(next);
    if (!this.#synced) {
      this.#synced = true;
      this.#resolveReady();
    }
    return changes;
  }
}

/**
 * `object` as it enters the cache: from here on it is shared by every reader, so it is typed read-only.
 * The one place the mutable type becomes the read-only one.
 */
function cached<T>(object: T): DeepReadonly<T> {
  return object as DeepReadonly<T>;
}

function sameVersion(a: DeepReadonly<KubeObject>, b: DeepReadonly<KubeObject>): boolean {
  const rv = a.metadata.resourceVersion;
  return rv !== undefined && rv === b.metadata.resourceVersion;
}
