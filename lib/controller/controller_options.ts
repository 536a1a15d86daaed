import type { InformerScope } from "../cache/mod.ts";
import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject, ResourceRef } from "../resources/object.ts";
import type { Logger } from "../log/logger.ts";
import type { MetricsRegistry } from "../metrics/registry.ts";
import type { RateLimiter } from "../queue/mod.ts";
import type { Clock } from "../time/clock.ts";
import type { Predicate, Reconciler, ReconcileRequest } from "./types.ts";
import type { ShardCoordinator } from "../shard/mod.ts";

/** What a controller needs from a shard coordinator (lib/shard's `ShardCoordinator`). */
export type ControllerShard = Pick<ShardCoordinator, "partition" | "begin" | "onActivated" | "rangeOf">;

/**
 * The primary kind with the scope of its informer: `{ ref: CONFIG_MAPS, labelSelector: "mirror=true" }`
 * caches (and reconciles) only the labelled objects. The scope's namespace defaults to the controller's.
 */
export interface PrimarySource<T extends KubeObject = KubeObject> extends InformerScope {
  /** The primary resource. */
  ref: ResourceRef<T>;
}

/**
 * An owned kind: changes enqueue the controlling owner when it is of the primary kind. The scope limits
 * what its informer caches; `metadataOnly: true` suits owned objects that are only mapped to their owner.
 * Build one with {@linkcode ownsSource} to type its predicates by the kind.
 */
export interface OwnsSource extends InformerScope {
  /** The watched resource. */
  ref: ResourceRef;
  /**
   * Filters on this source (all must pass).
   * @default {[]}
   */
  predicates?: Predicate[];
}

/**
 * Any other kind: changes enqueue whatever `map` returns. The scope limits what its informer caches. Build
 * one with {@linkcode watchesSource} to type `map` and the predicates by the kind.
 */
export interface WatchesSource extends InformerScope {
  /** The watched resource. */
  ref: ResourceRef;
  /** The requests a changed object triggers (called with the old and the new object of an update). */
  map: (obj: DeepReadonly<KubeObject>) => ReconcileRequest[];
  /**
   * Filters on this source (all must pass).
   * @default {[]}
   */
  predicates?: Predicate[];
}

/** Options of {@linkcode Controller} and `Manager.controller`. */
export interface ControllerOptions<T extends KubeObject = KubeObject> {
  /** Names the controller in logs, metrics and the queue. */
  name: string;
  /**
   * The primary kind, alone or with the scope of its informer ({@linkcode PrimarySource}): its changes
   * enqueue the object itself.
   */
  for: ResourceRef<T> | PrimarySource<T>;
  /**
   * Filters on primary changes (all must pass).
   * @default {[]}
   */
  predicates?: Predicate<T>[];
  /**
   * Owned kinds (e.g. Deployments a Foo creates).
   * @default {[]}
   */
  owns?: (ResourceRef | OwnsSource)[];
  /**
   * Other kinds with a mapping to requests.
   * @default {[]}
   */
  watches?: WatchesSource[];
  /** Brings the world in line with one primary object. */
  reconcile: Reconciler;
  /**
   * Concurrent reconciles (never two of one key).
   * @default {1}
   */
  workers?: number;
  /**
   * Aborts `ctx.signal` after this long; cooperative, the call is still awaited.
   * @default {no timeout}
   */
  reconcileTimeoutMs?: number;
  /**
   * How long shutdown waits for in-flight reconciles before aborting their signals; run then waits up
   * to 5 s more for them to return.
   * @default {30_000}
   */
  gracefulShutdownMs?: number;
  /**
   * A primary object whose deletion has waited this long for finalizers is "stuck terminating": logged at
   * warn level once (with its finalizers) and counted in `kubeloop_controller_stuck_terminating_objects`.
   * The primary cache is scanned every minute (or every threshold, if shorter); 0 turns it off.
   * @default {600_000}
   */
  stuckTerminatingAfterMs?: number;
  /**
   * Reconcile real changes first: changes seen in the informers' lists (every object of the initial
   * list, what a relist found changed) and resyncs are queued at `LOW_PRIORITY`, behind watch events,
   * so a change made while a 10,000-object start-up backlog drains is reconciled next, not last
   * (controller-runtime's priority queue, its default since v0.23, does the same for the initial list).
   * False queues every change at priority 0, in arrival order.
   * @default {true}
   */
  prioritizeChanges?: boolean;
  /**
   * Watch only this namespace.
   * @default {all namespaces}
   */
  namespace?: string;
  /**
   * Backoff of failed keys.
   * @default {the queue's default (5 ms .. 1000 s per key, 10 qps burst 100)}
   */
  rateLimiter?: RateLimiter<string>;
  /**
   * Split the work with other replicas: the primary kind's informer caches this replica's share (by the
   * object's hash), owned kinds' informers the share of their controlling owners, and a key is reconciled
   * only while its object's range is active here, inside that claim's write fence. Keys become work when
   * their range does. `watches` sources are cached whole.
   * @default {no sharding: every key}
   */
  shard?: ControllerShard;
  /**
   * Registers controller_runtime_* and workqueue_* metrics.
   * @default {no metrics}
   */
  registry?: MetricsRegistry;
  /**
   * Structured logs.
   * @default {noopLogger}
   */
  logger?: Logger;
  /**
   * Time source.
   * @default {systemClock}
   */
  clock?: Clock;
}

/** An {@linkcode OwnsSource} whose predicates are typed by the owned kind. */
export function ownsSource<S extends KubeObject>(
  ref: ResourceRef<S>,
  options: InformerScope & { readonly predicates?: Predicate<S>[] } = {},
): OwnsSource {
  const { predicates, ...scope } = options;
  // Sound: the informer of `ref` hands these predicates only objects of kind S.
  return { ...scope, ref, ...(predicates ? { predicates: predicates as unknown as Predicate[] } : {}) };
}

/** A {@linkcode WatchesSource} whose `map` and predicates are typed by the watched kind. */
export function watchesSource<S extends KubeObject>(
  ref: ResourceRef<S>,
  map: (obj: DeepReadonly<S>) => ReconcileRequest[],
  options: InformerScope & { readonly predicates?: Predicate<S>[] } = {},
): WatchesSource {
  const { predicates, ...scope } = options;
  return {
    ...scope,
    ref,
    map: map as (obj: DeepReadonly<KubeObject>) => ReconcileRequest[],
    ...(predicates ? { predicates: predicates as unknown as Predicate[] } : {}),
  };
}
