import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject, ResourceRef } from "../resources/object.ts";
import type {
  Indexers,
  InformerHandler,
  InformerPartition,
  InformerScope,
  Store,
  SyncStatus,
} from "../cache/mod.ts";
import type { Logger } from "../log/logger.ts";

/** What to reconcile: the primary object's name (and namespace when it is namespaced). */
export interface ReconcileRequest {
  /** Namespace; omitted for cluster-scoped objects. */
  namespace?: string;
  /** Object name. */
  name: string;
}

/**
 * What reconcile asks for next. Returning nothing (or `{}`) means done: the key's backoff is reset.
 * `requeueAfterMs > 0` re-queues after that delay (periodic checks); `requeue: true` re-queues with the
 * rate limiter's backoff without counting as an error.
 */
export interface Action {
  /** Reconcile again after this many milliseconds. */
  requeueAfterMs?: number;
  /** Reconcile again with rate-limited backoff. */
  requeue?: boolean;
}

/** Passed to every reconcile call. */
export interface ReconcileContext {
  /**
   * Aborts when the reconcile timeout passes, when the shutdown grace period ends, or at once when
   * leadership is lost. Pass it to every request, so a pending write is cancelled.
   */
  signal: AbortSignal;
  /** The controller's logger with `controller` and `key` fields. */
  logger: Logger;
  /** The queue key, "ns/name" or "name". */
  key: string;
  /** Rate-limited retries of this key since its last success. */
  retries: number;
}

/** The user's reconcile function. Throwing re-queues the key with backoff. */
export type Reconciler = (request: ReconcileRequest, ctx: ReconcileContext) => Promise<Action | void>;

/** A change seen by an informer, as passed to predicates (the cached, read-only objects). */
export type TriggerEvent<T extends KubeObject = KubeObject> =
  | { type: "add"; object: DeepReadonly<T> }
  | { type: "update"; oldObject: DeepReadonly<T>; object: DeepReadonly<T> }
  | { type: "delete"; object: DeepReadonly<T> };

/** Decides whether an informer change triggers a reconcile. */
export type Predicate<T extends KubeObject = KubeObject> = (event: TriggerEvent<T>) => boolean;

/**
 * What a controller needs from an informer; `Informer` from lib/cache satisfies it.
 * @experimental May gain members (cache size, resourceVersion reads).
 */
export interface InformerLike<T extends KubeObject = KubeObject> {
  /** The informer cache. */
  readonly store: Store<T>;
  /** Registers handlers; returns the unsubscribe function. */
  subscribe(handler: InformerHandler<T>): () => void;
  /** Resolves after the first full sync. */
  ready(signal?: AbortSignal): Promise<void>;
  /** True after the first full sync. */
  hasSynced(): boolean;
  /** The resource, whether it synced and its last list/watch failure (shown by /readyz). */
  syncStatus?(): SyncStatus;
}

/**
 * Where informers come from; `SharedInformerFactory` satisfies it.
 * @experimental May gain members (indexers, sharding).
 */
export interface InformerSource {
  /**
   * The shared informer of a resource. `indexers` are added to its store whether or not it exists
   * already, so the order in which controllers and indexes are set up does not matter.
   */
  informer<T extends KubeObject>(
    ref: ResourceRef<T>,
    options?: InformerScope & { readonly indexers?: Indexers<T>; readonly partition?: InformerPartition },
  ): InformerLike<T>;
}
