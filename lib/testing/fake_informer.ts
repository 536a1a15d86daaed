import { IndexedStore, type Indexers, type InformerHandler } from "../cache/mod.ts";
import type { DeepReadonly } from "../resources/deep_readonly.ts";
import { objectKey } from "../client/paths.ts";
import type { KubeObject, ResourceRef } from "../resources/object.ts";
import type { InformerLike, InformerSource } from "../controller/types.ts";
import { deepFreeze } from "../_internal/deep_freeze.ts";

/** Options of {@linkcode FakeInformer}. */
export interface FakeInformerOptions<T extends KubeObject> {
  /**
   * Secondary indexes of the store.
   * @default {only the namespace index}
   */
  readonly indexers?: Indexers<T>;
  /**
   * Deep-freeze every object as it enters the store, so code that mutates a cached object fails loudly.
   * @default {true}
   */
  readonly freeze?: boolean;
}

/**
 * An informer the test drives: `add`, `update` and `remove` change the store and call the subscribers
 * synchronously; `sync` marks the first list done. A controller built on {@linkcode FakeInformers} runs
 * with no API at all, for unit tests of triggers and mappings; it does not read anyone's writes. (To run
 * informers on a fake API with real list/watch semantics, and reading the FakeApi's writes as they read a
 * KubeClient's, give a `SharedInformerFactory` a `FakeApi` instead.)
 */
export class FakeInformer<T extends KubeObject = KubeObject> implements InformerLike<T> {
  /** The cache, as a real informer's. */
  readonly store: IndexedStore<T>;
  readonly #handlers = new Set<InformerHandler<T>>();
  readonly #freeze: boolean;
  #synced = false;
  #waiters: (() => void)[] = [];

  /** An empty, unsynced informer. */
  constructor(options: FakeInformerOptions<T> = {}) {
    this.store = new IndexedStore<T>(options.indexers ?? {});
    this.#freeze = options.freeze ?? true;
  }

  /** Registers `handler`; returns the function that removes it. */
  subscribe(handler: InformerHandler<T>): () => void {
    this.#handlers.add(handler);
    return () => void this.#handlers.delete(handler);
  }

  /** Number of registered handlers. */
  get subscribers(): number {
    return this.#handlers.size;
  }

  /** Resolves once `sync()` was called; rejects with `signal.reason` on abort (at once if already aborted). */
  ready(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  }

  /** True after `sync()`. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** Marks the initial list as done: `ready()` resolves. */
  sync(): void {
    this.#synced = true;
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Caches `obj` as new and calls `onAdd` (as part of the initial list until `sync()`, then as a watch event). */
  add(obj: T): void {
    const stored = this.#cache(obj);
    this.store.set(objectKey(stored), stored);
    const info = { source: this.#synced ? "watch" : "list" } as const;
    for (const h of this.#handlers) void h.onAdd?.(stored, info);
  }

  /** Replaces the cached object of the same key and calls `onUpdate(old, new)`; throws when it is missing. */
  update(obj: T): void {
    const key = objectKey(obj);
    const old = this.store.get(key);
    if (!old) throw new Error(`FakeInformer: update of "${key}", which is not cached`);
    const stored = this.#cache(obj);
    this.store.set(key, stored);
    for (const h of this.#handlers) void h.onUpdate?.(old, stored, { source: "watch" });
  }

  /** Tells subscribers (`onRecovered`) that the informer reached the API server again after failing. */
  recover(): void {
    for (const h of this.#handlers) h.onRecovered?.();
  }

  /** Removes the cached object of the same key and calls `onDelete`. */
  remove(obj: T): void {
    const stored = this.#cache(obj);
    this.store.delete(objectKey(stored));
    for (const h of this.#handlers) void h.onDelete?.(stored, { finalStateUnknown: false, source: "watch" });
  }

  /** `obj` as a cached object: a frozen copy (by default), typed read-only like a real informer's. */
  #cache(obj: T): DeepReadonly<T> {
    return (this.#freeze ? deepFreeze(structuredClone(obj)) : obj) as DeepReadonly<T>;
  }
}

/**
 * Hands out one {@linkcode FakeInformer} per resource (scope options are ignored; indexers are added).
 *
 * @example Drive a controller's triggers by hand, with no API at all
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONFIG_MAPS, Controller, type ReconcileRequest } from "@kubeloop/kubeloop";
 * import { FakeInformers } from "@kubeloop/kubeloop/testing";
 *
 * const informers = new FakeInformers();
 * const reconciled = Promise.withResolvers<ReconcileRequest>();
 * const controller = new Controller(informers, {
 *   name: "example",
 *   for: CONFIG_MAPS,
 *   reconcile: async (request) => reconciled.resolve(request),
 * });
 * const stop = new AbortController();
 * const running = controller.run({ signal: stop.signal });
 * informers.syncAll(); // the "initial list" is done
 * informers.get(CONFIG_MAPS).add({ metadata: { name: "a", namespace: "shop" } });
 * assert.deepEqual(await reconciled.promise, { namespace: "shop", name: "a" });
 * stop.abort();
 * await running;
 * ```
 */
export class FakeInformers implements InformerSource {
  readonly #byRef = new Map<string, FakeInformer<KubeObject>>();
  readonly #options: FakeInformerOptions<KubeObject>;

  /** `options` apply to every informer it creates. */
  constructor(options: { readonly freeze?: boolean } = {}) {
    this.#options = options;
  }

  /** The informer of `ref` (InformerSource); `indexers` are added to its store, as a real factory does. */
  informer<T extends KubeObject>(
    ref: ResourceRef<T>,
    options: { readonly indexers?: Indexers<T> } = {},
  ): InformerLike<T> {
    const informer = this.get(ref);
    if (options.indexers) informer.store.addIndexers(options.indexers);
    return informer;
  }

  /** The informer of `ref`, with the test controls. */
  get<T extends KubeObject>(ref: ResourceRef<T>): FakeInformer<T> {
    const key = `${ref.group}/${ref.plural}`;
    let informer = this.#byRef.get(key);
    if (!informer) this.#byRef.set(key, informer = new FakeInformer(this.#options));
    return informer as unknown as FakeInformer<T>;
  }

  /** Syncs every informer handed out so far. */
  syncAll(): void {
    for (const i of this.#byRef.values()) i.sync();
  }
}
