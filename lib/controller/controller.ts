import { EventLoopSlicer } from "../_internal/event_loop_slicer.ts";
import { objectKey, splitKey } from "../client/paths.ts";
import type { KubeObject, ResourceRef } from "../resources/object.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { queueMetricsFor } from "../queue/queue_metrics_registry.ts";
import { type AddOptions, LOW_PRIORITY, RateLimitingQueue } from "../queue/mod.ts";
import { type Clock, systemClock, type Timer } from "../time/clock.ts";
import { terminatingForMs } from "./finalizers.ts";
import { type ChangeInfo, type InformerScope, resourceName } from "../cache/mod.ts";
import { activeSpanContext, tracingEnabled } from "../trace/tracing.ts";
import { traceReconcile } from "./_reconcile_span.ts";
import { describeReason, ReasonBook, type ReconcileTrigger } from "./reconcile_reason.ts";
import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { ControllerOptions, ControllerShard, OwnsSource, PrimarySource } from "./controller_options.ts";
import {
  type ControllerMetrics,
  controllerMetricsFor,
  noopControllerMetrics,
  type ReconcileResult,
} from "./metrics.ts";
import { requestFor, requestForController } from "./owner.ts";
import { stopWorkers } from "./shutdown.ts";
import { loadWriteOrigins, runAsWriter, type WriteOrigin } from "../_internal/write_origin.ts";
import type {
  InformerLike,
  InformerSource,
  Predicate,
  Reconciler,
  ReconcileRequest,
  TriggerEvent,
} from "./types.ts";

export type {
  ControllerOptions,
  ControllerShard,
  OwnsSource,
  PrimarySource,
  WatchesSource,
} from "./controller_options.ts";

/** Options of {@linkcode Controller.run}. */
export interface ControllerRunOptions {
  /** Stops the controller: no new work, in-flight reconciles get the grace period. */
  signal: AbortSignal;
  /**
   * Aborts in-flight reconciles at once, without a grace period (leadership lost).
   * @default {never}
   */
  abortInFlight?: AbortSignal;
}

/**
 * A level-triggered controller: informer changes become keys ("ns/name") in a rate-limiting queue and
 * N workers call reconcile with each key; reconcile reads the current state from the informer stores.
 * Guarantees (from the queue): a key is never reconciled by two workers at once, and a change during a
 * reconcile runs it again afterwards. A thrown error re-queues the key with per-key backoff and never
 * stops a worker; when an informer reaches the API server again after failing, keys waiting for such a
 * retry are retried at once. Changes from the informers' lists (the initial one above all) and resyncs
 * wait behind watch events, which reflect a change as it happened ({@linkcode LOW_PRIORITY}, see
 * {@linkcode ControllerOptions.prioritizeChanges}); a re-queued key keeps the priority it was handed out
 * at. Build it with `new Controller(informers, options)`, or let a `Manager` build
 * and run it (`manager.controller(options)`).
 *
 * Read-your-writes, with informers from a `SharedInformerFactory` (or `Informer`s) over the client the
 * reconciler writes through (a KubeClient or FakeApi): when a reconcile of a key ends, every write it
 * made through that client is in the caches (or something newer is), so the next reconcile of the key
 * reads its own writes, however late the watch is; and a change that a write of a reconcile made, alone,
 * does not enqueue that key again in this controller (its own status, finalizer and owned-object writes
 * cause no needless reconcile). Other controllers, and other keys the change maps to, are enqueued as
 * usual; a change that merges someone else's edit with ours (a write without resourceVersion precondition
 * over an edit the cache had not seen) enqueues the key too. Not covered: writes through another client
 * or process, which arrive through the watch as anyone's; a reconcile that relies on its own write to run
 * again must ask for it (`requeue`, `requeueAfterMs`).
 *
 * @example Reconcile the ConfigMaps that carry a label
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   CONFIG_MAPS,
 *   Controller,
 *   KubeClient,
 *   loadConfig,
 *   type ReconcileRequest,
 *   SharedInformerFactory,
 * } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * const informers = new SharedInformerFactory(client);
 * const app = `example-${crypto.randomUUID().slice(0, 8)}`;
 * const reconciled = Promise.withResolvers<ReconcileRequest>();
 * const controller = new Controller(informers, {
 *   name: "example",
 *   for: { ref: CONFIG_MAPS, labelSelector: `app=${app}` }, // what is cached and reconciled
 *   reconcile: async (request) => reconciled.resolve(request), // throw to retry with backoff
 * });
 * const stop = new AbortController();
 * informers.start(stop.signal);
 * const running = controller.run({ signal: stop.signal });
 * const namespace = client.namespace;
 * await client.create(CONFIG_MAPS, { metadata: { name: app, namespace, labels: { app } } });
 * assert.deepEqual(await reconciled.promise, { namespace, name: app });
 * stop.abort();
 * await Promise.all([running, informers.stopped(), client.delete(CONFIG_MAPS, app, { namespace })]);
 * ```
 */
export class Controller<T extends KubeObject = KubeObject> {
  /** The controller's name. */
  readonly name: string;
  /** The queue of keys; exposed for tests and for enqueueing from elsewhere. */
  readonly queue: RateLimitingQueue<string>;
  /** The informer of the primary kind. */
  readonly primary: InformerLike<T>;
  #informers: InformerLike[] = [];
  #unsubscribe: (() => void)[] = [];
  #reconcile: Reconciler;
  #workers: number;
  readonly #slicer = new EventLoopSlicer();
  #timeoutMs: number | undefined;
  #graceMs: number;
  #clock: Clock;
  #logger: Logger;
  #metrics: ControllerMetrics;
  #active = 0;
  #running = new Set<string>();
  #hardStop = new AbortController();
  #stuckAfterMs: number;
  #primaryPredicates: Predicate<T>[];
  #stuck = new Set<string>();
  #started = false;
  #shard: ControllerShard | undefined;
  /** Sharded: primary objects deleted from the cache, until their key was processed (their range). */
  #tombstones = new Map<string, DeepReadonly<T>>();
  /** Tags this controller's writes (compared by identity). */
  readonly #writer = {};
  #reasons = new ReasonBook();
  readonly #primaryResource: string;
  readonly #prioritize: boolean;

  /**
   * Takes the informer of each source from `informers` (usually a `SharedInformerFactory`) and subscribes
   * to it; nothing is reconciled until `run()`.
   */
  constructor(informers: InformerSource, options: ControllerOptions<T>) {
    const o = options;
    if (!o.name) throw new TypeError("A controller needs a name");
    this.#workers = o.workers ?? 1;
    if (!Number.isInteger(this.#workers) || this.#workers < 1) {
      throw new RangeError(`Controller "${o.name}": workers must be a positive integer, got ${o.workers}`);
    }
    this.name = o.name;
    this.#reconcile = o.reconcile;
    this.#timeoutMs = o.reconcileTimeoutMs;
    this.#graceMs = o.gracefulShutdownMs ?? 30_000;
    this.#stuckAfterMs = o.stuckTerminatingAfterMs ?? 600_000;
    this.#prioritize = o.prioritizeChanges ?? true;
    this.#clock = o.clock ?? systemClock;
    this.#logger = (o.logger ?? noopLogger).child({ controller: o.name });
    this.#metrics = o.registry ? controllerMetricsFor(o.registry, o.name) : noopControllerMetrics;
    this.queue = new RateLimitingQueue<string>({
      name: o.name,
      clock: this.#clock,
      ...(o.rateLimiter ? { rateLimiter: o.rateLimiter } : {}),
      ...(o.registry ? { metrics: queueMetricsFor(o.registry, o.name) } : {}),
    });
    const scope = (s: InformerScope): InformerScope => scopeOf(s, o.namespace);
    const primary: PrimarySource<T> = "ref" in o.for ? o.for : { ref: o.for };
    this.#primaryPredicates = o.predicates ?? [];
    this.#primaryResource = resourceName(primary.ref);
    this.#shard = o.shard;
    const share = (ref: ResourceRef, source: "self" | "controller") =>
      o.shard ? { partition: o.shard.partition(ref, source) } : {};
    this.primary = this.#watch<T>(
      informers.informer<T>(primary.ref, { ...scope(primary), ...share(primary.ref, "self") }),
      this.#primaryResource,
      this.#primaryPredicates,
      (obj) => [requestFor(obj)],
    );
    if (o.shard) this.#followShard(o.shard);
    for (const owned of o.owns ?? []) {
      const source: OwnsSource = "ref" in owned ? owned : { ref: owned };
      const resource = resourceName(source.ref);
      const informer = informers.informer(source.ref, {
        ...scope(source),
        ...share(source.ref, "controller"),
      });
      this.#watch(informer, resource, source.predicates ?? [], (obj) => {
        const request = requestForController(obj, primary.ref);
        return request ? [request] : [];
      });
    }
    for (const w of o.watches ?? []) {
      this.#watch(informers.informer(w.ref, scope(w)), resourceName(w.ref), w.predicates ?? [], w.map);
    }
    this.#metrics.maxConcurrentReconciles(this.#workers);
    this.#metrics.activeWorkers(0);
  }

  /** True once every informer this controller reads has synced. */
  hasSynced(): boolean {
    return this.#informers.every((i) => i.hasSynced());
  }

  /**
   * One entry per informer of this controller that has not synced: its resource (e.g. `v1/secrets`) and
   * its last list/watch failure (e.g. `Forbidden (403): secrets is forbidden: ...`), or "not synced yet".
   * The reason may name users and resources: /readyz shows only the resource and logs the reason.
   */
  syncProblems(): { resource: string; reason: string }[] {
    return this.#informers.filter((i) => !i.hasSynced()).map((i) => {
      const status = i.syncStatus?.();
      const resource = status?.resource ?? "an informer";
      const e = status?.lastError;
      if (!e) return { resource, reason: "not synced yet" };
      return { resource, reason: `${e.reason ?? "error"}${e.code ? ` (${e.code})` : ""}: ${e.message}` };
    });
  }

  /** Adds a request to the queue; a request without a name is a TypeError. */
  enqueue(request: ReconcileRequest): void {
    this.#add(requestKey(request), { type: "enqueue" });
  }

  /** Queues `key`, noting why (the reconcile's log lines and span name the first reason and count them). */
  #add(key: string, trigger: ReconcileTrigger, link = activeSpanContext()): void {
    this.#reasons.note(key, trigger, this.#clock.now(), link);
    // What a list or a resync brings can wait: it goes behind the changes watch events report.
    const waits = this.#prioritize &&
      (trigger.type === "initial list" || trigger.type === "relist" || trigger.type === "resync");
    this.queue.add(key, waits ? LOW : undefined);
  }

  /**
   * Waits for the informers to sync, reconciles every primary object its predicates pass (as an add),
   * then runs the workers until
   * `signal` aborts. Shutdown stops taking work and waits up to the grace period for in-flight
   * reconciles; then it aborts their signals and waits up to 5 s more for them to return (see
   * {@linkcode stopWorkers}), so nothing of ours is still writing when the Manager releases its Lease.
   * `abortInFlight` skips the grace period: when it aborts (the Manager aborts it when leadership is lost),
   * every in-flight reconcile's signal aborts at once with its reason, and so does the signal of any
   * reconcile that starts afterwards. Runs once.
   */
  async run(options: ControllerRunOptions): Promise<void> {
    if (this.#started) throw new Error(`Controller "${this.name}" has already run`);
    this.#started = true;
    const { signal, abortInFlight } = options;
    const hardStopNow = () => {
      this.#logger.warn("Aborting in-flight reconciles at once", {
        inFlight: [...this.#running],
        reason: String(abortInFlight?.reason),
      });
      this.#hardStop.abort(abortInFlight?.reason);
    };
    if (abortInFlight?.aborted) hardStopNow();
    else abortInFlight?.addEventListener("abort", hardStopNow, { once: true });
    try {
      await this.#runWorkers(signal);
    } finally {
      abortInFlight?.removeEventListener("abort", hardStopNow);
      await this.queue.shutDown();
      for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
      this.#logger.info("Stopped");
    }
  }

  async #runWorkers(signal: AbortSignal): Promise<void> {
    await loadWriteOrigins();
    try {
      await Promise.all(this.#informers.map((i) => i.ready(signal)));
    } catch (error) {
      if (!signal.aborted) {
        throw new Error(`Controller "${this.name}": caches did not sync`, { cause: error });
      }
    }
    if (!signal.aborted) {
      // Informers replay their cache as adds to new subscribers, through the predicates; this pass covers
      // informers that do not (fakes), with the same predicates: a filtered-out object is not reconciled.
      for (const object of this.primary.store.list()) {
        const key = requestKey(requestFor(object));
        if (this.#reasons.pending(key)) continue; // the informer's replay queued it already
        if (this.#primaryPredicates.every((p) => p({ type: "add", object }))) {
          this.#add(key, this.#changed("initial list", this.#primaryResource, object));
        }
      }
      this.#logger.info("Starting workers", { workers: this.#workers });
      const workers = Array.from({ length: this.#workers }, () => this.#worker());
      const scan = this.#watchStuckTerminating();
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      scan?.cancel();
      this.#logger.info("Shutting down: waiting for in-flight reconciles", { inFlight: [...this.#running] });
      void this.queue.shutDown();
      await stopWorkers({
        workers,
        gracePeriodMs: this.#graceMs,
        hardStop: this.#hardStop,
        inFlight: () => [...this.#running],
        clock: this.#clock,
        logger: this.#logger,
      });
    }
  }

  /**
   * Sharded: when a range starts admitting work, its keys are queued (the cache holds them by then); a
   * deleted primary object's last state is kept until its key is processed, so the deletion is reconciled
   * by the replica holding its range.
   */
  #followShard(shard: ControllerShard): void {
    this.#unsubscribe.push(shard.onActivated((range) => {
      if (!this.#started) return;
      for (const object of this.primary.store.list()) {
        if (shard.rangeOf(object) !== range) continue;
        if (this.#primaryPredicates.every((p) => p({ type: "add", object }))) {
          this.enqueue(requestFor(object));
        }
      }
    }));
    this.#unsubscribe.push(this.primary.subscribe({
      onDelete: (object) => void this.#tombstones.set(objectKey(object), object),
    }));
  }

  /** Scans the primary cache for objects stuck terminating, periodically; returns the timer. */
  #watchStuckTerminating(): Timer | undefined {
    if (this.#stuckAfterMs <= 0) return undefined;
    const period = Math.min(this.#stuckAfterMs, 60_000);
    let timer: Timer;
    const scan = () => {
      this.#scanStuckTerminating();
      timer = this.#clock.setTimer(scan, period);
    };
    timer = this.#clock.setTimer(scan, period);
    return { cancel: () => timer.cancel() };
  }

  #scanStuckTerminating(): void {
    const now = this.#clock.now();
    const stuck = new Set<string>();
    for (const obj of this.primary.store.list()) {
      const finalizers = obj.metadata.finalizers ?? [];
      const age = terminatingForMs(obj, now);
      if (finalizers.length === 0 || age === undefined || age < this.#stuckAfterMs) continue;
      const key = objectKey(obj);
      stuck.add(key);
      if (!this.#stuck.has(key)) {
        this.#logger.warn("Object stuck terminating: deletion is waiting for finalizers", {
          key,
          terminatingForS: Math.round(age / 1000),
          finalizers: [...finalizers],
        });
      }
    }
    this.#stuck = stuck;
    this.#metrics.stuckTerminating?.(stuck.size);
  }

  #watch<S extends KubeObject>(
    informer: InformerLike<S>,
    resource: string,
    predicates: Predicate<S>[],
    map: (obj: DeepReadonly<S>) => ReconcileRequest[],
  ): InformerLike<S> {
    this.#informers.push(informer as unknown as InformerLike);
    const trigger = (event: TriggerEvent<S>, info: ChangeInfo | undefined) => {
      const origin = info?.origin;
      try {
        if (!predicates.every((p) => p(event))) return;
        const objects = event.type === "update" ? [event.oldObject, event.object] : [event.object];
        // One event may map to the same key twice (old and new object); add it once.
        const keys = new Set(objects.flatMap((obj) => map(obj).map(requestKey)));
        // The doing of our own reconcile of that key alone: it knows already (read-your-writes).
        if (origin?.writer === this.#writer) keys.delete(origin.key);
        if (keys.size === 0) return;
        const why = this.#changed(triggerType(event.type, info), resource, event.object);
        const link = activeSpanContext();
        for (const key of keys) this.#add(key, why, link);
      } catch (error) {
        this.#logger.error("Cannot map an informer event to requests", { error, event: event.type });
      }
    };
    this.#unsubscribe.push(informer.subscribe({
      onAdd: (object, info) => trigger({ type: "add", object }, info),
      onUpdate: (oldObject, object, info) => trigger({ type: "update", oldObject, object }, info),
      onDelete: (object, info) => trigger({ type: "delete", object }, info),
      // Reconciles that failed while the server was away are retried now, not after their backoff,
      // which grew all the while (up to as long again as the outage lasted).
      onRecovered: () => {
        const retried = this.queue.retryNow();
        this.#reasons.dueNow(["requeue after error", "requeue"], this.#clock.now());
        if (retried > 0) {
          this.#logger.info("API server reachable again; retrying failed reconciles now", { retried });
        }
      },
    }));
    return informer;
  }

  async #worker(): Promise<void> {
    for (;;) {
      // With a backlog of reconciles that only read the cache, nothing here waits for I/O: give timers
      // (the Lease renewal) and I/O a turn every few milliseconds.
      await this.#slicer.pause();
      const key = await this.queue.get();
      if (key === undefined) return;
      this.#metrics.activeWorkers(++this.#active);
      this.#running.add(key);
      try {
        await this.#process(key);
      } finally {
        this.#running.delete(key);
        this.#metrics.activeWorkers(--this.#active);
        this.queue.done(key);
      }
    }
  }

  /** The trigger of a change to `object` of `resource`. */
  #changed(
    type: "add" | "update" | "delete" | "initial list" | "relist" | "resync",
    resource: string,
    object: DeepReadonly<KubeObject>,
  ): ReconcileTrigger {
    return { type, resource, key: objectKey(object), resourceVersion: object.metadata.resourceVersion };
  }

  async #process(key: string): Promise<void> {
    let ticket: ShardTicketLike | undefined;
    if (this.#shard) {
      const object = this.primary.store.get(key) ?? this.#tombstones.get(key);
      ticket = object ? this.#shard.begin(object) : undefined;
      if (!ticket) {
        // Its range is not active here: the replica that holds it reconciles it.
        this.#reasons.take(key, this.#clock.now(), this.queue.dueAt(key) !== undefined);
        this.#tombstones.delete(key);
        this.queue.forget(key);
        return;
      }
    }
    try {
      await this.#reconcileKey(key, ticket);
    } finally {
      ticket?.end();
    }
  }

  async #reconcileKey(key: string, ticket: ShardTicketLike | undefined): Promise<void> {
    const reason = this.#reasons.take(key, this.#clock.now(), this.queue.dueAt(key) !== undefined);
    const logger = this.#logger.child({ key, reason: describeReason(reason) });
    const ctl = new AbortController();
    const onLost = () => ctl.abort(ticket?.signal.reason);
    if (ticket?.signal.aborted) onLost();
    else ticket?.signal.addEventListener("abort", onLost, { once: true });
    const onHardStop = () => ctl.abort(this.#hardStop.signal.reason);
    if (this.#hardStop.signal.aborted) onHardStop();
    else this.#hardStop.signal.addEventListener("abort", onHardStop, { once: true });
    const timer = this.#timeoutMs === undefined ? undefined : this.#clock.setTimer(() => {
      this.#metrics.timedOut();
      ctl.abort(
        new DOMException(`Reconcile of "${key}" timed out after ${this.#timeoutMs} ms`, "TimeoutError"),
      );
    }, this.#timeoutMs);
    // A re-queue keeps the priority the key was handed out at (as controller-runtime does): a failing
    // real change retries ahead of initial work, a failing initial item stays behind real changes.
    const priority = this.queue.handedOutPriority(key) ?? 0;
    const requeue: AddOptions = priority === 0 ? {} : { priority };
    const started = this.#clock.now();
    let result: ReconcileResult;
    try {
      const retries = this.queue.numRequeues(key);
      const context = { signal: ctl.signal, logger, key, retries };
      const origin: WriteOrigin = { writer: this.#writer, name: this.name, key };
      const unfenced = () => runAsWriter(origin, () => this.#reconcile(splitKey(key), context));
      // Sharded: every write the reconcile makes passes only under its range's claim.
      const run = ticket ? () => ticket.run(unfenced) : unfenced;
      const action = tracingEnabled()
        ? await traceReconcile(
          { controller: this.name, key, retries, queueWaitSeconds: (started - reason.atMs) / 1000 },
          reason,
          run,
        )
        : await run();
      this.#tombstones.delete(key);
      if (action?.requeueAfterMs !== undefined && action.requeueAfterMs > 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, action.requeueAfterMs, requeue);
        this.#scheduled(key, { type: "requeueAfter", afterMs: action.requeueAfterMs });
        result = "requeue_after";
      } else if (action?.requeue) {
        this.queue.addRateLimited(key, requeue);
        this.#scheduled(key, { type: "requeue" });
        result = "requeue";
      } else {
        this.queue.forget(key);
        result = "success";
      }
    } catch (error) {
      this.queue.addRateLimited(key, requeue);
      this.#scheduled(key, { type: "requeue after error" });
      result = "error";
      logger.error("Reconciler error", { error, retries: this.queue.numRequeues(key) });
    } finally {
      timer?.cancel();
      this.#hardStop.signal.removeEventListener("abort", onHardStop);
      ticket?.signal.removeEventListener("abort", onLost);
    }
    const seconds = (this.#clock.now() - started) / 1000;
    this.#metrics.reconciled(result, seconds);
    logger.debug("Reconciled", { result, durationMs: Math.round(seconds * 1000) });
  }

  /** Notes the requeue of `key` just handed to the queue, due when the queue says. */
  #scheduled(key: string, trigger: ReconcileTrigger): void {
    this.#reasons.schedule(key, trigger, this.queue.dueAt(key) ?? this.#clock.now());
  }
}

/** How a change that can wait is queued. */
const LOW: AddOptions = Object.freeze({ priority: LOW_PRIORITY });

/** The kind of trigger a change is: where it came from for lists and resyncs, else its type. */
function triggerType(
  type: TriggerEvent["type"],
  info: ChangeInfo | undefined,
): "add" | "update" | "delete" | "initial list" | "relist" | "resync" {
  switch (info?.source) {
    case "list":
      return "initial list";
    case "relist":
    case "resync":
      return info.source;
    default:
      return type;
  }
}

/** What the controller uses of a shard ticket (lib/shard's `ShardTicket`). */
type ShardTicketLike = NonNullable<ReturnType<ControllerShard["begin"]>>;

/** A source's informer scope: its own fields, the namespace defaulting to the controller's. */
function scopeOf(source: InformerScope, namespace: string | undefined): InformerScope {
  const ns = source.namespace ?? namespace;
  return {
    ...(ns ? { namespace: ns } : {}),
    ...(source.labelSelector ? { labelSelector: source.labelSelector } : {}),
    ...(source.fieldSelector ? { fieldSelector: source.fieldSelector } : {}),
    ...(source.metadataOnly ? { metadataOnly: true } : {}),
  };
}

/** The queue key of a request: the cache key of the object it names. */
function requestKey(request: ReconcileRequest): string {
  return objectKey({ metadata: request });
}
