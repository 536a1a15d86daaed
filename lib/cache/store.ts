import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject } from "../resources/object.ts";
import { jsonSize } from "./_json_size.ts";

/** Computes the index values of an object (zero, one or several). Must be pure and fast. */
export type IndexFunc<T extends KubeObject> = (object: DeepReadonly<T>) => readonly string[];

/**
 * Named index functions.
 *
 * @example An informer with a secondary index
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   type Indexers,
 *   Informer,
 *   KubeClient,
 *   loadConfig,
 *   type Namespace,
 *   NAMESPACES,
 * } from "@kubeloop/kubeloop";
 *
 * const indexers: Indexers<Namespace> = { phase: (ns) => [ns.status?.phase ?? "Unknown"] };
 * await using client = new KubeClient(await loadConfig());
 * const informer = new Informer(client, NAMESPACES, { indexers });
 * const stop = new AbortController();
 * const running = informer.run({ signal: stop.signal });
 * await informer.ready();
 * const active = informer.store.byIndex("phase", "Active").map((ns) => ns.metadata.name);
 * assert.ok(active.includes("default"));
 * stop.abort();
 * await running;
 * ```
 */
export type Indexers<T extends KubeObject> = Readonly<Record<string, IndexFunc<T>>>;

/** The name of the index every store has: objects by `metadata.namespace` ("" for cluster-scoped). */
export const NAMESPACE_INDEX = "namespace";

/**
 * Read access to a cache of objects kept current by an informer.
 *
 * Objects are shared, not copied, so they are handed out as `DeepReadonly<T>`: writing to one is a
 * compile error (copy it first with `mutableCopy` to build a changed version). A write through
 * a cast would silently corrupt the cache for every reader; the informer option `freezeObjects` makes it
 * throw at run time instead (for tests).
 * Lists are snapshots taken at call time. Readers never see a half-listed cache: the initial list
 * and every relist become visible at once.
 */
export interface Store<T extends KubeObject> {
  /** The object at `key` ("namespace/name" or "name"). */
  get(key: string): DeepReadonly<T> | undefined;
  /** Shorthand for `get` with the key built from `name` and `namespace`. */
  getByName(name: string, namespace?: string): DeepReadonly<T> | undefined;
  /** All objects. */
  list(): DeepReadonly<T>[];
  /** All keys. */
  keys(): string[];
  /** Objects whose index function `indexName` returned `value`. Throws RangeError for an unknown index. */
  byIndex(indexName: string, value: string): DeepReadonly<T>[];
  /** Objects in namespace `namespace` (the built-in namespace index). */
  listByNamespace(namespace: string): DeepReadonly<T>[];
  /** Number of objects. */
  readonly size: number;
}

/**
 * The in-memory store with secondary indexes. Informers write to it through a `StoreWriter`;
 * everyone else should hold it as a {@linkcode Store}.
 *
 * @example Look objects up by an index instead of scanning
 * ```ts
 * import assert from "node:assert/strict";
 * import { IndexedStore, type Pod } from "@kubeloop/kubeloop";
 *
 * // An informer keeps such a store (its `indexers` option); here it is filled by hand.
 * const store = new IndexedStore<Pod>({ node: (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []) });
 * store.set("shop/web-1", {
 *   metadata: { name: "web-1", namespace: "shop" },
 *   spec: { nodeName: "n1", containers: [] },
 * });
 * store.set("shop/web-2", {
 *   metadata: { name: "web-2", namespace: "shop" },
 *   spec: { nodeName: "n2", containers: [] },
 * });
 * assert.deepEqual(store.byIndex("node", "n1").map((pod) => pod.metadata.name), ["web-1"]);
 * assert.equal(store.listByNamespace("shop").length, 2); // the built-in namespace index
 * assert.equal(store.getByName("web-2", "shop")?.spec?.nodeName, "n2");
 * ```
 */
export class IndexedStore<T extends KubeObject> implements Store<T> {
  #items = new Map<string, DeepReadonly<T>>();
  readonly #indexers: Map<string, IndexFunc<T>>;
  #indexes = new Map<string, Map<string, Set<string>>>();
  /** The running total of `jsonSize` over the held objects, once `measureBytes` turned it on. */
  #bytes: number | undefined;

  /** Creates an empty store with the built-in namespace index plus `indexers`. */
  constructor(indexers: Indexers<T> = {}) {
    this.#indexers = new Map(Object.entries(indexers));
    if (!this.#indexers.has(NAMESPACE_INDEX)) {
      this.#indexers.set(NAMESPACE_INDEX, (object) => [object.metadata.namespace ?? ""]);
    }
    for (const name of this.#indexers.keys()) this.#indexes.set(name, new Map());
  }

  get(key: string): DeepReadonly<T> | undefined {
    return this.#items.get(key);
  }

  getByName(name: string, namespace?: string): DeepReadonly<T> | undefined {
    return this.#items.get(namespace ? `${namespace}/${name}` : name);
  }

  list(): DeepReadonly<T>[] {
    return [...this.#items.values()];
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  get size(): number {
    return this.#items.size;
  }

  /**
   * About how many bytes the held objects take as JSON (see `jsonSize`), kept current on every write once
   * {@linkcode measureBytes} was called (undefined before): what `kubeloop_informer_cache_bytes` reports.
   * Not the heap they take.
   */
  get bytes(): number | undefined {
    return this.#bytes;
  }

  /**
   * Keeps `bytes` current from now on: each write then also walks the objects it adds or drops (5–9 % of
   * what parsing them took). An informer turns it on when its metrics report cache sizes. Idempotent.
   */
  measureBytes(): void {
    if (this.#bytes !== undefined) return;
    let bytes = 0;
    for (const object of this.#items.values()) bytes += jsonSize(object);
    this.#bytes = bytes;
  }

  byIndex(indexName: string, value: string): DeepReadonly<T>[] {
    const index = this.#indexes.get(indexName);
    if (!index) {
      throw new RangeError(
        `Cannot query index "${indexName}": no such index (have: ${[...this.#indexes.keys()].join(", ")})`,
      );
    }
    const keys = index.get(value);
    if (!keys) return [];
    const out: DeepReadonly<T>[] = [];
    for (const key of keys) {
      const object = this.#items.get(key);
      if (object) out.push(object);
    }
    return out;
  }

  listByNamespace(namespace: string): DeepReadonly<T>[] {
    return this.byIndex(NAMESPACE_INDEX, namespace);
  }

  /**
   * Adds secondary indexes and builds them over the objects already held, so an index registered after
   * the informer exists (or has synced) answers like one given at construction. Registering the same
   * function under the same name again does nothing.
   * @throws {TypeError} when `name` already indexes with another function: two callers disagree on what
   *   the index means, and one of them would silently read the other's.
   */
  addIndexers(indexers: Indexers<T>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      const existing = this.#indexers.get(name);
      if (existing === fn) continue;
      if (existing !== undefined) {
        throw new TypeError(
          `Cannot add indexer "${name}": another function is already registered under that name`,
        );
      }
      this.#indexers.set(name, fn);
      const index = new Map<string, Set<string>>();
      this.#indexes.set(name, index);
      for (const [key, object] of this.#items) {
        for (const value of fn(object)) {
          let keys = index.get(value);
          if (!keys) index.set(value, keys = new Set());
          keys.add(key);
        }
      }
    }
  }

  /** Inserts or replaces the object at `key`, keeping the indexes current. Returns the previous one. */
  set(key: string, object: DeepReadonly<T>): DeepReadonly<T> | undefined {
    const old = this.#items.get(key);
    if (old) this.#unindex(key, old);
    this.#items.set(key, object);
    this.#index(key, object);
    if (this.#bytes !== undefined) this.#bytes += jsonSize(object) - (old ? jsonSize(old) : 0);
    return old;
  }

  /** Removes the object at `key`. Returns it. */
  delete(key: string): DeepReadonly<T> | undefined {
    const old = this.#items.get(key);
    if (!old) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    if (this.#bytes !== undefined) this.#bytes -= jsonSize(old);
    return old;
  }

  /** Replaces the whole content in one synchronous step (the atomic swap after a list). */
  replace(items: Map<string, DeepReadonly<T>>): void {
    this.#items = items;
    for (const name of this.#indexers.keys()) this.#indexes.set(name, new Map());
    for (const [key, object] of items) this.#index(key, object);
    if (this.#bytes === undefined) return;
    let bytes = 0;
    for (const object of items.values()) bytes += jsonSize(object);
    this.#bytes = bytes;
  }

  #index(key: string, object: DeepReadonly<T>): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indexes.get(name)!;
      for (const value of fn(object)) {
        let keys = index.get(value);
        if (!keys) index.set(value, keys = new Set());
        keys.add(key);
      }
    }
  }

  #unindex(key: string, object: DeepReadonly<T>): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indexes.get(name)!;
      for (const value of fn(object)) {
        const keys = index.get(value);
        if (!keys) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(value);
      }
    }
  }
}
