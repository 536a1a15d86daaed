import { deepFreeze } from "../_internal/deep_freeze.ts";
import { ApiError } from "../client/api_error.ts";
import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject, ResourceRef } from "../resources/object.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { type Clock, systemClock, type Timer } from "../time/clock.ts";
import { type BackoffOptions, withBackoff } from "../watch/backoff.ts";
import type { ListWatcher } from "../watch/list_watcher.ts";
import { WatchDecodeError } from "../watch/watch_decode_error.ts";
import { watcher, type WatcherOptions } from "../watch/watcher.ts";
import type { WatcherEvent } from "../watch/watcher_event.ts";
import { changeStream } from "./_change_stream.ts";
import { emitTraced } from "./_change_spans.ts";
import type { ChangeSource } from "./change_source.ts";
import type { InformerPartition } from "./informer_partition.ts";
import { RetryPolicy } from "./_retry_policy.ts";
import { resourceName } from "./resource_name.ts";
import { WriteThrough } from "./_write_through.ts";
import { isWriteSource, type WriteSource } from "../client/write_listener.ts";
import type { WriteOrigin } from "../_internal/write_origin.ts";
import { type InformerMetrics, noopInformerMetrics } from "./informer_metrics.ts";
import { IndexedStore, type Indexers, type Store } from "./store.ts";
import { type StoreChange, StoreWriter } from "./store_writer.ts";
import { stripManagedFields } from "./strip_managed_fields.ts";

/** What a handler learns about a change besides the objects. */
export interface ChangeInfo {
  /**
   * The reconcile whose write alone made this change (see read-your-writes in the module doc); undefined
   * for changes anyone else made, or that a write made together with someone else's.
   */
  readonly origin?: WriteOrigin | undefined;
  /** What brought the change; informers that do not say (fakes) leave it out. */
  readonly source?: ChangeSource | undefined;
}

/**
 * Callbacks for cache changes, with the cached (shared, read-only) objects. Exceptions (and rejected
 * promises) are logged and never stop the informer. While tracing is on (see lib/trace), each call runs
 * inside the span of the watch event, list or resync that brought it.
 */
export interface InformerHandler<T extends KubeObject> {
  /** A new object, or every cached object when subscribing after the first sync. */
  onAdd?(object: DeepReadonly<T>, info?: ChangeInfo): void | Promise<void>;
  /** A changed object; on resync `oldObject === newObject`. */
  onUpdate?(oldObject: DeepReadonly<T>, newObject: DeepReadonly<T>, info?: ChangeInfo): void | Promise<void>;
  /** A deleted object; see `StoreChange` for `finalStateUnknown`. */
  onDelete?(object: DeepReadonly<T>, info: ChangeInfo & { finalStateUnknown: boolean }): void | Promise<void>;
  /**
   * The informer reached the API server again after failing (a list or watch succeeded). Changes
   * missed meanwhile arrive as usual; this says that work which failed while the server was away may
   * be retried now.
   */
  onRecovered?(): void;
}

/** Options of {@linkcode Informer}: the watcher's, plus caching and delivery. */
export interface InformerOptions<T extends KubeObject>
  extends Omit<WatcherOptions, "signal" | "hooks" | "listItemTransform"> {
  /**
   * Secondary indexes besides the built-in "namespace" one.
   * @default {only the namespace index}
   */
  readonly indexers?: Indexers<T>;
  /**
   * Drop `metadata.managedFields` before caching (without `delete`; see `stripManagedFields`).
   * @default {true}
   */
  readonly stripManagedFields?: boolean;
  /**
   * Deep-freeze every object as it enters the cache, so a write to a cached object through a cast throws
   * a TypeError instead of corrupting the cache silently. For tests (it costs a walk of every object);
   * the types already make such writes compile errors.
   * @default {false}
   */
  readonly freezeObjects?: boolean;
  /**
   * Applied to every object before it is cached (after stripping). Must not mutate its argument.
   * @default {none}
   */
  readonly transform?: (object: T) => T;
  /**
   * Every this many ms, re-deliver each cached object as `onUpdate(obj, obj)`; 0 turns it off.
   * @default {0}
   */
  readonly resyncPeriodMs?: number;
  /**
   * Watch retry policy.
   * @default {initialMs 800, maxMs 30000, factor 2, resetAfterMs 120000} (the Backoff defaults)
   */
  readonly backoff?: Omit<BackoffOptions, "clock" | "random">;
  /**
   * Largest retry delay while the API server cannot be reached (refused or reset connections,
   * timeouts, 5xx, 429): about one attempt per this many ms while it is down, and a current cache
   * within that long after it is back. Other failures back off up to `backoff.maxMs`.
   * @default {4000}
   */
  readonly reconnectMaxMs?: number;
  /**
   * Metric hooks.
   * @default {noopInformerMetrics}
   */
  readonly metrics?: InformerMetrics;
  /**
   * Whose writes to cache at once (read-your-writes): while the informer runs, the answer of each write
   * of this resource through this client goes into the store before the caller's `await` resumes, and
   * the change it makes carries the writing reconcile as its `origin`. `false` leaves the cache to the
   * watch alone.
   * @default {the informer's own client, when it reports its writes (KubeClient and FakeApi do)}
   */
  readonly writes?: WriteSource | false;
  /**
   * Cache only this partition's current share, following its changes (replicas splitting the work).
   * @default {everything in scope}
   */
  readonly partition?: InformerPartition;
}

/** One share of a partition, read at once: the version it is, and its selector. */
interface Share {
  readonly partition: InformerPartition;
  readonly version: number;
  readonly shardSelector: string | undefined;
}

type Listener<T extends KubeObject> = (change: StoreChange<T>, source: ChangeSource) => void;

/** One shared info object per source for changes nobody's write made, so delivering them allocates nothing. */
const INFO: Readonly<Record<ChangeSource, ChangeInfo>> = Object.freeze({
  list: Object.freeze({ source: "list" }),
  relist: Object.freeze({ source: "relist" }),
  watch: Object.freeze({ source: "watch" }),
  resync: Object.freeze({ source: "resync" }),
  write: Object.freeze({ source: "write" }),
});

/** The last list or watch failure of an informer. */
export interface SyncError {
  /** The error's message (for an API error, the server's Status message). */
  readonly message: string;
  /** HTTP status of an API error, e.g. 403 or 404. */
  readonly code?: number;
  /** Status reason of an API error, e.g. "Forbidden" or "NotFound". */
  readonly reason?: string;
  /** When it happened, in ms since the epoch (the informer's clock). */
  readonly atMs: number;
}

/** Whether an informer has synced, and if not, what went wrong last. */
export interface SyncStatus {
  /** "group/version/plural" (or "version/plural" for core). */
  readonly resource: string;
  /** True once the first full list is in the store. */
  readonly synced: boolean;
  /** The last list or watch failure since the last successful list, if any. */
  readonly lastError?: SyncError;
}

/**
 * Keeps a {@linkcode Store} of one resource current (watcher + backoff + store writer) and tells
 * subscribers what changed.
 *
 * Guarantees: the store is swapped atomically after each full list; `ready()` resolves after the
 * first one; handlers run synchronously in event order (per object; a change to an object with a write
 * of ours in flight is handed on when that write returns) and a failing handler affects nobody else;
 * `run()` retries watch failures with backoff forever (at most `reconnectMaxMs` apart while the
 * server is unreachable), logging them with the resource name, tells subscribers (`onRecovered`)
 * when it reaches the server again, and resolves (never rejects) when its signal aborts. Objects are
 * shared with the store: never mutate.
 *
 * Read-your-writes (see `writes`): once a write through the informer's client has returned, the store
 * holds its answer or something newer, and no watch event older than it can bring an older version back
 * (versions are ordered as integers, see {@linkcode compareResourceVersions}). Its watch event then
 * changes nothing. The change a write made is handed to subscribers with the writing reconcile as
 * `origin` when it is that write's doing alone. Not covered: writes through another client or process,
 * dry runs, resources whose versions are not integers, objects outside a field selector the informer
 * cannot evaluate (other than `metadata.name`/`metadata.namespace`), and deletions answered without a uid.
 *
 * @example Cache the namespaces and hear about changes
 * ```ts
 * import assert from "node:assert/strict";
 * import { Informer, KubeClient, loadConfig, NAMESPACES } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * const informer = new Informer(client, NAMESPACES);
 * const added: string[] = [];
 * informer.subscribe({ onAdd: (ns) => void added.push(ns.metadata.name ?? "") });
 * const stop = new AbortController();
 * const running = informer.run({ signal: stop.signal }); // lists, then watches until aborted
 * await informer.ready(); // the first full list is in the store
 * assert.ok(informer.store.getByName("default")); // a cache read: no request
 * assert.ok(added.includes("kube-system"));
 * stop.abort();
 * await running;
 * ```
 */
export class Informer<T extends KubeObject = KubeObject> {
  /** The cache; read-only for everyone but this informer. */
  readonly store: Store<T>;
  readonly #client: ListWatcher;
  readonly #ref: ResourceRef<T>;
  readonly #options: InformerOptions<T>;
  readonly #writer: StoreWriter<T>;
  readonly #store: IndexedStore<T>;
  readonly #listeners = new Set<Listener<T>>();
  readonly #recoveryListeners = new Set<() => void>();
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #metrics: InformerMetrics;
  readonly #resource: string;
  /**
   * Objects of list pages the client transformed as it decoded them (see `listItemTransform`), until
   * their event arrives: transformed once, never twice.
   */
  readonly #transformedItems = new WeakSet<T>();
  #running = false;
  #writeThrough: WriteThrough<T> | undefined;
  /** The source of the change being handed to read-your-writes right now (see #changed). */
  #passing: ChangeSource | undefined;
  #lastError: SyncError | undefined;
  #loggedFailure = "";

  /** Creates an idle informer; nothing happens until `run()`. */
  constructor(client: ListWatcher, ref: ResourceRef<T>, options: InformerOptions<T> = {}) {
    this.#client = client;
    this.#ref = ref;
    this.#options = options;
    const store = new IndexedStore<T>(options.indexers ?? {});
    this.store = store;
    this.#store = store;
    this.#writer = new StoreWriter(store);
    this.#resource = resourceName(ref);
    this.#logger = (options.logger ?? noopLogger).child({ resource: this.#resource });
    this.#clock = options.clock ?? systemClock;
    this.#metrics = options.metrics ?? noopInformerMetrics;
  }

  /** Adds secondary indexes to the store, built over what it holds already (see `IndexedStore.addIndexers`). */
  addIndexers(indexers: Indexers<T>): void {
    this.#store.addIndexers(indexers);
  }

  /** True once the first full list is in the store. */
  hasSynced(): boolean {
    return this.#writer.hasSynced();
  }

  /** "group/version/plural" of the watched resource (the `resource` label of its metrics and logs). */
  get resource(): string {
    return this.#resource;
  }

  /**
   * Synced or not, and the last failure since the last successful list: what readiness reports while an
   * informer cannot sync, e.g. 403 Forbidden (RBAC missing) or 404 Not Found (CRD not installed).
   */
  syncStatus(): SyncStatus {
    const synced = this.hasSynced();
    return { resource: this.#resource, synced, ...(this.#lastError ? { lastError: this.#lastError } : {}) };
  }

  /** Resolves after the first full sync; rejects with `signal.reason` if `signal` aborts first. */
  ready(signal?: AbortSignal): Promise<void> {
    return this.#writer.ready(signal);
  }

  /**
   * Registers `handler`; returns the function that unregisters it. A handler added after the first
   * sync first receives `onAdd` for every cached object, so late subscribers miss nothing.
   */
  subscribe(handler: InformerHandler<T>): () => void {
    const listener: Listener<T> = (change, source) => this.#deliver(handler, change, source);
    if (this.hasSynced()) {
      for (const object of this.store.list()) listener({ type: "add", object }, "list");
    }
    this.#listeners.add(listener);
    const recovered = handler.onRecovered?.bind(handler);
    if (recovered) this.#recoveryListeners.add(recovered);
    return () => {
      this.#listeners.delete(listener);
      if (recovered) this.#recoveryListeners.delete(recovered);
    };
  }

  /** The changes from now on as an async iterable (unbounded buffer); ends when `signal` aborts. */
  changes(
    options: { signal?: AbortSignal | undefined } = {},
  ): AsyncGenerator<StoreChange<T>, void, undefined> {
    return changeStream<StoreChange<T>>((listener) => {
      this.#listeners.add(listener);
      return () => void this.#listeners.delete(listener);
    }, options.signal);
  }

  /**
   * Lists and watches until `signal` aborts; resolves then. Call it once. With a `partition`, every change
   * of its share ends the current list or watch and lists the new share (see {@linkcode InformerPartition}).
   */
  async run(options: { signal: AbortSignal }): Promise<void> {
    const { signal } = options;
    if (this.#running) throw new Error(`Informer for ${this.#resource} is already running`);
    this.#running = true;
    const metrics = this.#metrics;
    const resync = this.#startResync();
    const stopWrites = this.#observeWrites();
    const store = this.#store;
    if (metrics.trackCache) store.measureBytes(); // only then does anyone read the bytes
    const untrack = metrics.trackCache?.(
      this.#resource,
      () => ({ objects: store.size, bytes: store.bytes ?? 0 }),
    );
    try {
      const partition = this.#options.partition;
      if (!partition) await this.#runScope(signal, undefined);
      else while (!signal.aborted) await this.#runShare(signal, partition);
    } finally {
      stopWrites();
      this.#writeThrough = undefined;
      resync?.cancel();
      untrack?.();
      this.#running = false;
    }
  }

  /** Lists and watches one share of `partition` until the share changes or `signal` aborts. */
  async #runShare(signal: AbortSignal, partition: InformerPartition): Promise<void> {
    const changed = new AbortController();
    const unsubscribe = partition.subscribe(() => changed.abort());
    try {
      await this.#runScope(AbortSignal.any([signal, changed.signal]), {
        partition,
        version: partition.version,
        shardSelector: partition.shardSelector,
      });
    } finally {
      unsubscribe();
    }
  }

  async #runScope(signal: AbortSignal, share: Share | undefined): Promise<void> {
    const o = this.#options;
    const metrics = this.#metrics;
    const resource = this.#resource;
    let failing = false;
    const source = watcher<T>(this.#client, this.#ref, {
      ...o,
      ...(share?.shardSelector ? { shardSelector: share.shardSelector } : {}),
      logger: this.#logger,
      signal,
      // A large list page is transformed item by item as it is decoded: its untransformed objects
      // (managedFields and all) never all exist at once.
      listItemTransform: (object) => {
        const out = this.#transform(object as T);
        this.#transformedItems.add(out);
        return out;
      },
      hooks: {
        onWatch: () => metrics.watchRestart(resource),
        onWireEvent: (type) => {
          metrics.eventReceived(resource, type);
          metrics.lastEventTimestamp(resource, this.#clock.now());
        },
        onConnected: () => {
          if (!failing) return;
          failing = false;
          this.#recovered();
        },
      },
    });
    const policy = new RetryPolicy(
      { ...o.backoff, clock: this.#clock, ...(o.random ? { random: o.random } : {}) },
      o.reconnectMaxMs ?? 4000,
    );
    const events = withBackoff(source, {
      signal,
      clock: this.#clock,
      logger: this.#logger,
      delayFor: (error) => policy.delayFor(error),
      onError: (error) => {
        failing = true;
        metrics.watchError(resource);
        if (error instanceof WatchDecodeError) metrics.decodeError(resource);
        this.#failed(error);
      },
    });
    for await (const raw of events) {
      if (raw.type === "init") metrics.relist(resource);
      if (raw.type === "initDone") this.#listed();
      const source = raw.type === "initDone" ? (this.hasSynced() ? "relist" : "list") : "watch";
      const event = share
        ? this.#inShare(this.#transformEvent(raw), share.partition)
        : this.#transformEvent(raw);
      const changes = event ? this.#writer.apply(event) : [];
      if (changes.length > 0) {
        emitTraced(resource, source, changes, (change) => this.#changed(change, source));
      }
      if (raw.type === "initDone" && share) share.partition.synced(share.version);
    }
  }

  /**
   * `event` as the share sees it: objects outside it are not cached, and one that left it (its owner
   * changed, say) is deleted from the cache. Undefined: nothing to apply.
   */
  #inShare(event: WatcherEvent<T>, partition: InformerPartition): WatcherEvent<T> | undefined {
    switch (event.type) {
      case "initApply":
        return partition.includes(event.object as DeepReadonly<T>) ? event : undefined;
      case "apply":
        return partition.includes(event.object as DeepReadonly<T>)
          ? event
          : { type: "delete", object: event.object };
      default:
        return event;
    }
  }

  /**
   * Records a list/watch failure. Answers that will not fix themselves without an operator — 401, 403, 404
   * — are logged at error level once per distinct status (the backoff loop warns about every retry), naming
   * the resource, the status and the likely cause.
   */
  #failed(error: Error): void {
    const api = error instanceof ApiError ? error : undefined;
    this.#lastError = {
      message: error.message,
      atMs: this.#clock.now(),
      ...(api ? { code: api.code, reason: api.reason } : {}),
    };
    if (!api || ![401, 403, 404].includes(api.code)) return;
    const key = `${api.code} ${api.reason}`;
    if (key === this.#loggedFailure) return;
    this.#loggedFailure = key;
    const hint = api.code === 404
      ? "the resource does not exist on this server: is its CustomResourceDefinition installed?"
      : api.code === 403
      ? "the RBAC rules of this identity do not allow list and watch on it"
      : "the credentials were rejected";
    this.#logger.error(`Cannot list/watch ${this.#resource}: ${api.reason} (${api.code}); ${hint}`, {
      code: api.code,
      reason: api.reason,
      error: api.message,
    });
  }

  /** A full list arrived: what readiness reported as the last failure is over. */
  #listed(): void {
    if (this.#loggedFailure !== "") this.#logger.info("Listed after earlier failures", {});
    this.#lastError = undefined;
    this.#loggedFailure = "";
  }

  /** The API server answers again after failures: subscribers may retry what failed meanwhile. */
  #recovered(): void {
    this.#logger.info("Reached the API server again");
    for (const listener of this.#recoveryListeners) {
      try {
        listener();
      } catch (error) {
        this.#logger.error("Informer handler failed", { change: "recovered", error: String(error) });
      }
    }
  }

  #startResync(): Timer | undefined {
    const period = this.#options.resyncPeriodMs ?? 0;
    if (period <= 0) return undefined;
    let timer: Timer;
    const tick = () => {
      if (this.hasSynced()) {
        const changes = this.store.list().map((object) => ({
          type: "update" as const,
          oldObject: object,
          object,
        }));
        emitTraced(this.#resource, "resync", changes, (change) => this.#emit(change, "resync"));
      }
      timer = this.#clock.setTimer(tick, period);
    };
    timer = this.#clock.setTimer(tick, period);
    return { cancel: () => timer.cancel() };
  }

  #transformEvent(event: WatcherEvent<T>): WatcherEvent<T> {
    switch (event.type) {
      case "initApply":
        if (this.#transformedItems.delete(event.object)) return event;
        return { ...event, object: this.#transform(event.object) };
      case "apply":
      case "delete":
        return { ...event, object: this.#transform(event.object) };
      default:
        return event;
    }
  }

  #transform(object: T): T {
    let out = this.#options.stripManagedFields === false ? object : stripManagedFields(object);
    const transform = this.#options.transform;
    if (transform) {
      try {
        out = transform(out);
      } catch (error) {
        this.#logger.error("Transform failed; caching the object untransformed", { error: String(error) });
      }
    }
    return this.#options.freezeObjects ? deepFreeze(out) : out;
  }

  /** Subscribes read-your-writes to the write source; returns the unsubscribe. */
  #observeWrites(): () => void {
    const o = this.#options;
    const source = o.writes === undefined ? this.#client : o.writes;
    if (source === false || !isWriteSource(source)) return () => {};
    const through = new WriteThrough<T>({
      resource: this.#resource,
      namespace: o.namespace,
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
      metadataOnly: o.metadataOnly,
      inShare: o.partition ? (object) => o.partition!.includes(object as DeepReadonly<T>) : undefined,
      writer: this.#writer,
      transform: (object) => this.#transform(object),
      // Changes it hands on at once come from #changed (their source is known); those it held for a write
      // in flight, and the writes' own, come later: "write".
      emit: (change) => this.#emit(change, this.#passing ?? "write"),
      onError: (error) =>
        this.#logger.error("Cannot take a write's answer into the cache", {
          error: error instanceof Error ? error.message : String(error),
        }),
    });
    this.#writeThrough = through;
    return source.onWrite(through.listener);
  }

  /** A change from the watch or a list: through read-your-writes (which may hold it), else handed on. */
  #changed(change: StoreChange<T>, source: ChangeSource): void {
    if (!this.#writeThrough) return this.#emit(change, source);
    this.#passing = source;
    try {
      this.#writeThrough.changed(change);
    } finally {
      this.#passing = undefined;
    }
  }

  #emit(change: StoreChange<T>, source: ChangeSource): void {
    for (const listener of this.#listeners) listener(change, source);
  }

  #deliver(handler: InformerHandler<T>, change: StoreChange<T>, source: ChangeSource): void {
    try {
      let result: void | Promise<void>;
      switch (change.type) {
        case "add":
          result = handler.onAdd?.(change.object, this.#info(change, source));
          break;
        case "update":
          result = handler.onUpdate?.(change.oldObject, change.object, this.#info(change, source));
          break;
        case "delete":
          result = handler.onDelete?.(change.object, {
            finalStateUnknown: change.finalStateUnknown,
            origin: change.origin,
            source,
          });
          break;
      }
      if (result instanceof Promise) result.catch((error) => this.#handlerFailed(change, error));
    } catch (error) {
      this.#handlerFailed(change, error);
    }
  }

  #info(change: StoreChange<T>, source: ChangeSource): ChangeInfo {
    return change.origin === undefined ? INFO[source] : { origin: change.origin, source };
  }

  #handlerFailed(change: StoreChange<T>, error: unknown): void {
    this.#logger.error("Informer handler failed", {
      change: change.type,
      name: change.object.metadata.name,
      namespace: change.object.metadata.namespace,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

export { resourceName };
