import type { KubeObject, ResourceRef } from "../client/types.ts";
import type { Logger, MetricsRegistry } from "../observe/mod.ts";
import type { RateLimiter } from "../queue/mod.ts";
import type { Clock } from "../time/clock.ts";
import type { Predicate, Reconciler, Request } from "./types.ts";

/** An owned kind: changes enqueue the controlling owner when it is of the primary kind. */
export interface OwnsSource {
  /** The watched resource. */
  ref: ResourceRef;
  /**
   * Filters on this source (all must pass).
   * @default {[]}
   */
  predicates?: Predicate[];
}

/** Any other kind: changes enqueue whatever `map` returns. */
export interface WatchesSource {
  /** The watched resource. */
  ref: ResourceRef;
  /** The requests a changed object triggers. */
  map: (obj: KubeObject) => Request[];
  /**
   * Filters on this source (all must pass).
   * @default {[]}
   */
  predicates?: Predicate[];
}

/** Options of {@linkcode controller}. */
export interface ControllerOptions<T extends KubeObject = KubeObject> {
  /** Names the controller in logs, metrics and the queue. */
  name: string;
  /** The primary kind: its changes enqueue the object itself. */
  for: ResourceRef<T>;
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
