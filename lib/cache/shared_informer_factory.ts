import type { KubeObject, PartialObjectMetadata, ResourceRef } from "../resources/object.ts";
import type { ListWatcher } from "../watch/list_watcher.ts";
import { Informer, type InformerOptions, resourceName } from "./informer.ts";
import type { Indexers } from "./store.ts";
import type { InformerPartition } from "./informer_partition.ts";

/** What makes two informers the same watch. */
export interface InformerScope {
  /**
   * Namespace of a namespaced resource.
   * @default {all namespaces}
   */
  readonly namespace?: string;
  /**
   * Label selector in the server's syntax, e.g. "app=web,tier!=db" (see `formatLabelSelector`).
   * @default {everything}
   */
  readonly labelSelector?: string;
  /**
   * Field selector, e.g. "metadata.name=x".
   * @default {everything}
   */
  readonly fieldSelector?: string;
  /**
   * Cache `PartialObjectMetadata` (apiVersion, kind, metadata) instead of whole objects: for sources whose
   * content a controller never reads (owned objects it only maps to their owner, say), at a fraction of the
   * memory. Typed as `Informer<PartialObjectMetadata>` when set to `true`.
   * @default {false}
   */
  readonly metadataOnly?: boolean;
}

/** Defaults applied to every informer the factory creates (indexers and transform are per informer type, so not here). */
export type SharedInformerFactoryOptions = Omit<
  InformerOptions<KubeObject>,
  "namespace" | "labelSelector" | "fieldSelector" | "metadataOnly" | "indexers" | "transform" | "partition"
>;

/** Per-informer options: its scope plus indexers, and a transform used only by the first caller. */
export interface SharedInformerOptions<T extends KubeObject> extends InformerScope {
  /**
   * Secondary indexes. Every caller's are added, whether the informer exists, runs or has synced
   * already (they are built over what it holds); the same name with another function throws a TypeError.
   * @default {only the namespace index}
   */
  readonly indexers?: Indexers<T>;
  /**
   * Object transform (first caller wins).
   * @default {none}
   */
  readonly transform?: (object: T) => T;
  /**
   * Cache only this partition's share; informers of different partitions are different informers.
   * @default {everything in scope}
   */
  readonly partition?: InformerPartition;
}

interface Entry {
  readonly informer: Informer<KubeObject>;
  refs: number;
  controller?: AbortController;
  done?: Promise<void>;
}

/**
 * Hands out one {@linkcode Informer} — one watch — per (resource, namespace, labelSelector,
 * fieldSelector), however many controllers ask for it.
 *
 * Reference counted: each `informer()` call takes a reference and `release()` gives it back; when the
 * last reference is released the informer stops and is forgotten. `start(signal)` runs every informer
 * (also those created later) until `signal` aborts. Every caller's indexers are added to the shared
 * store, in any order; the transform of the first caller wins. Its informers read the writes of its client
 * when the client reports them (KubeClient and FakeApi do; option `writes`): see {@linkcode Informer}.
 *
 * @example One watch per resource and scope, however many parts of the program ask
 * ```ts
 * import assert from "node:assert/strict";
 * import { KubeClient, loadConfig, NAMESPACES, SharedInformerFactory } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * const factory = new SharedInformerFactory(client);
 * const forOneController = factory.informer(NAMESPACES);
 * const forAnother = factory.informer(NAMESPACES);
 * assert.equal(forOneController, forAnother);
 * const stop = new AbortController();
 * factory.start(stop.signal);
 * await factory.waitForSync(stop.signal);
 * assert.ok(forAnother.store.getByName("default"));
 * stop.abort();
 * await factory.stopped();
 * ```
 */
export class SharedInformerFactory {
  readonly #client: ListWatcher;
  readonly #options: SharedInformerFactoryOptions;
  readonly #entries = new Map<string, Entry>();
  /** `done` of released informers still shutting down, so `stopped()` waits for them too. */
  readonly #stopping = new Set<Promise<void>>();
  #signal: AbortSignal | undefined;

  /** Creates an empty factory. */
  constructor(client: ListWatcher, options: SharedInformerFactoryOptions = {}) {
    this.#client = client;
    this.#options = options;
  }

  /** The shared metadata-only informer for `ref` in `options`' scope; takes a reference. */
  informer<T extends KubeObject>(
    ref: ResourceRef<T>,
    options: SharedInformerOptions<PartialObjectMetadata> & { readonly metadataOnly: true },
  ): Informer<PartialObjectMetadata>;
  /** The shared informer for `ref` in `options`' scope; takes a reference. */
  informer<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    options?: SharedInformerOptions<T>,
  ): Informer<T>;
  informer<T extends KubeObject>(ref: ResourceRef<T>, options: SharedInformerOptions<T> = {}): Informer<T> {
    const key = [
      resourceName(ref),
      options.namespace ?? "",
      options.labelSelector ?? "",
      options.fieldSelector ?? "",
      options.metadataOnly ? "metadata" : "",
      options.partition?.id ?? "",
    ]
      .join("|");
    let entry = this.#entries.get(key);
    if (entry && options.indexers) {
      (entry.informer as unknown as Informer<T>).addIndexers(options.indexers);
    } else if (!entry) {
      const informer = new Informer<T>(this.#client, ref, {
        ...this.#options,
        ...(options as InformerOptions<T>),
      });
      entry = { informer: informer as unknown as Informer<KubeObject>, refs: 0 };
      this.#entries.set(key, entry);
      if (this.#signal && !this.#signal.aborted) this.#run(entry, this.#signal);
    }
    entry.refs++;
    return entry.informer as unknown as Informer<T>;
  }

  /** Gives back one reference to `informer`; the last one stops it. */
  release(informer: Informer<KubeObject> | Informer<never>): void {
    for (const [key, entry] of this.#entries) {
      if (entry.informer !== (informer as unknown)) continue;
      if (--entry.refs > 0) return;
      this.#entries.delete(key);
      entry.controller?.abort();
      const done = entry.done;
      if (done) {
        this.#stopping.add(done);
        const forget = () => void this.#stopping.delete(done);
        done.then(forget, forget);
      }
      return;
    }
    throw new RangeError("Cannot release informer: it is not held by this factory");
  }

  /** Runs every informer, present and future, until `signal` aborts. */
  start(signal: AbortSignal): void {
    this.#signal = signal;
    for (const entry of this.#entries.values()) if (!entry.controller) this.#run(entry, signal);
  }

  /** Resolves when every current informer has synced; rejects with `signal.reason` on abort. */
  async waitForSync(signal: AbortSignal): Promise<void> {
    await Promise.all([...this.#entries.values()].map((entry) => entry.informer.ready(signal)));
  }

  /**
   * Resolves when every informer's `run()` has returned (after abort or release), including informers
   * released earlier whose watch is still closing.
   */
  async stopped(): Promise<void> {
    await Promise.all([...[...this.#entries.values()].map((entry) => entry.done), ...this.#stopping]);
  }

  /** Number of distinct informers held. */
  get size(): number {
    return this.#entries.size;
  }

  #run(entry: Entry, signal: AbortSignal): void {
    const controller = new AbortController();
    const stop = () => controller.abort(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    entry.controller = controller;
    entry.done = entry.informer.run({ signal: controller.signal }).finally(() =>
      signal.removeEventListener("abort", stop)
    );
  }
}
