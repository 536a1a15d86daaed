import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject } from "../resources/object.ts";
import type { WatcherEvent } from "../watch/watcher_event.ts";
import type { WriteOrigin } from "../_internal/write_origin.ts";
import { assertNever } from "../_internal/assert_never.ts";
import { objectKey } from "../client/paths.ts";
import { compareResourceVersions } from "./resource_version.ts";
import type { IndexedStore } from "./store.ts";

/**
 * A change to the cache, as handlers see it (the objects are the cached, read-only ones). `origin` is set
 * when the change is the own doing of a write made in a controller's reconcile, and of nothing else
 * (see lib/cache's read-your-writes); the controller skips such changes for the key it reconciled.
 */
export type StoreChange<T extends KubeObject> =
  | { type: "add"; object: DeepReadonly<T>; origin?: WriteOrigin }
  | { type: "update"; oldObject: DeepReadonly<T>; object: DeepReadonly<T>; origin?: WriteOrigin }
  /**
   * `finalStateUnknown`: the object vanished between two lists, so the delete itself was missed and
   * `object` is the last state we knew, not the final one.
   */
  | { type: "delete"; object: DeepReadonly<T>; finalStateUnknown: boolean; origin?: WriteOrigin };

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
 *
 * Ordered by resourceVersion (see `compareResourceVersions`), so the cache never goes back in time: an
 * `apply` or `delete` older than the cached object of its key is dropped, and a list keeps a cached
 * object newer than the listed one (or, absent from the list, newer than the list itself). That is what
 * lets {@linkcode StoreWriter.write} put the answer of a write into the cache before its watch event
 * arrives: the event (same version) then changes nothing, and an older one cannot undo it. Versions
 * that are not canonical decimal integers are compared for equality only, as before.
 */
export class StoreWriter<T extends KubeObject> {
  readonly #store: IndexedStore<T>;
  #buffer: Map<string, DeepReadonly<T>> | undefined;
  #synced = false;
  /** uid by key of objects a write of this process deleted, until their DELETED event (or a list) arrives. */
  readonly #gone = new Map<string, string>();
  /** Keys with a write in flight (counted), and the version at which a watch or list removed them. */
  readonly #tracked = new Map<string, { count: number; removedAt?: string }>();
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
        return this.#swap(event.resourceVersion);
      case "apply": {
        const key = objectKey(event.object);
        const object = cached(event.object);
        if (this.#isGone(key, object.metadata.uid)) return [];
        const old = this.#store.get(key);
        if (old && !newer(object, old)) return [];
        this.#store.set(key, object);
        return [old ? { type: "update", oldObject: old, object } : { type: "add", object }];
      }
      case "delete": {
        const key = objectKey(event.object);
        if (this.#isGone(key, event.object.metadata.uid)) this.#gone.delete(key);
        const old = this.#store.get(key);
        // Older than the cached object: the key was created again since (a write of ours put it here).
        if (
          !old ||
          compareResourceVersions(event.object.metadata.resourceVersion, old.metadata.resourceVersion) === -1
        ) {
          return [];
        }
        this.#store.delete(key);
        this.#removed(key, event.object.metadata.resourceVersion);
        return [{ type: "delete", object: cached(event.object), finalStateUnknown: false }];
      }
      case "error":
        return [];
      default:
        return assertNever(event, "watcher event");
    }
  }

  /**
   * Puts `object`, as a write of this process got it back from the server, into the cache when it is
   * newer than the cached object of its key (or the key is empty and no watch event or list removed it
   * at that version or later while the write was in flight, see `track`). Returns the change, or
   * undefined when the cache already holds this version or a newer one, or the version cannot be ordered.
   */
  write(object: T): StoreChange<T> | undefined {
    const key = objectKey(object);
    const rv = object.metadata.resourceVersion;
    const old = this.#store.get(key);
    if (old) {
      if (compareResourceVersions(rv, old.metadata.resourceVersion) !== 1) return undefined;
    } else {
      if (compareResourceVersions(rv, rv) !== 0 || this.#gone.get(key) === object.metadata.uid) {
        return undefined;
      }
      const removedAt = this.#tracked.get(key)?.removedAt;
      if (removedAt !== undefined && compareResourceVersions(removedAt, rv) !== -1) return undefined;
    }
    const entry = cached(object);
    this.#store.set(key, entry);
    return old ? { type: "update", oldObject: old, object: entry } : { type: "add", object: entry };
  }

  /**
   * Removes the object `uid` at `key`, which a write of this process deleted, and ignores any later event
   * about it but its DELETED event. Returns the change, or undefined when the cache does not hold it.
   */
  writeDeleted(key: string, uid: string): StoreChange<T> | undefined {
    const old = this.#store.get(key);
    if (!old || old.metadata.uid !== uid) return undefined;
    this.#store.delete(key);
    this.#gone.set(key, uid);
    return { type: "delete", object: old, finalStateUnknown: false };
  }

  /**
   * Marks `key` as having a write in flight until `untrack(key)`: a removal by a watch event or a list
   * meanwhile is remembered, so the write's answer, older than the removal, is not cached (see `write`).
   */
  track(key: string): void {
    const entry = this.#tracked.get(key);
    if (entry) entry.count++;
    else this.#tracked.set(key, { count: 1 });
  }

  /** Ends one `track(key)`. */
  untrack(key: string): void {
    const entry = this.#tracked.get(key);
    if (entry && --entry.count <= 0) this.#tracked.delete(key);
  }

  #isGone(key: string, uid: string | undefined): boolean {
    return uid !== undefined && this.#gone.get(key) === uid;
  }

  #removed(key: string, rv: string | undefined): void {
    const entry = this.#tracked.get(key);
    if (entry && rv !== undefined) entry.removedAt = rv;
  }

  #swap(listRv: string): StoreChange<T>[] {
    const next = this.#buffer ?? new Map<string, DeepReadonly<T>>();
    this.#buffer = undefined;
    const changes: StoreChange<T>[] = [];
    const previous = new Map<string, DeepReadonly<T>>();
    for (const key of this.#store.keys()) previous.set(key, this.#store.get(key)!);
    // A list can be older than what a write of ours cached meanwhile: that version stays.
    for (const [key, current] of previous) {
      const listed = next.get(key);
      const rv = current.metadata.resourceVersion;
      if (compareResourceVersions(rv, listed ? listed.metadata.resourceVersion : listRv) === 1) {
        next.set(key, current);
      }
    }
    for (const key of [...this.#gone.keys()]) {
      if (this.#isGone(key, next.get(key)?.metadata.uid)) next.delete(key); // listed before its deletion
      else this.#gone.delete(key);
    }
    for (const [key, object] of next) {
      const old = previous.get(key);
      if (!old) changes.push({ type: "add", object });
      else if (!sameVersion(old, object)) changes.push({ type: "update", oldObject: old, object });
      else next.set(key, old); // keep the instance readers may already hold
    }
    for (const [key, old] of previous) {
      if (next.has(key)) continue;
      changes.push({ type: "delete", object: old, finalStateUnknown: true });
      this.#removed(key, listRv);
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

/** True when `object` should replace `old`: a newer version, or (versions that cannot be ordered) another. */
function newer(object: DeepReadonly<KubeObject>, old: DeepReadonly<KubeObject>): boolean {
  const order = compareResourceVersions(object.metadata.resourceVersion, old.metadata.resourceVersion);
  return order === undefined ? !sameVersion(old, object) : order === 1;
}
