import type { KubeObject, ResourceRef } from "../client/types.ts";
import type { Logger } from "../observe/types.ts";

/** What to reconcile: the primary object's name (and namespace when it is namespaced). */
export interface Request {
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
  /** Aborts when the reconcile timeout passes or the shutdown grace period ends. */
  signal: AbortSignal;
  /** The controller's logger with `controller` and `key` fields. */
  logger: Logger;
  /** The queue key, "ns/name" or "name". */
  key: string;
  /** Rate-limited retries of this key since its last success. */
  retries: number;
}

/** The user's reconcile function. Throwing re-queues the key with backoff. */
export type Reconciler = (request: Request, ctx: ReconcileContext) => Promise<Action | void>;

/** A change seen by an informer, as passed to predicates. */
export type TriggerEvent<T extends KubeObject = KubeObject> =
  | { type: "add"; object: T }
  | { type: "update"; oldObject: T; object: T }
  | { type: "delete"; object: T };

/** Decides whether an informer change triggers a reconcile. */
export type Predicate<T extends KubeObject = KubeObject> = (event: TriggerEvent<T>) => boolean;

/** The read side of an informer's cache, as the controller uses it. */
export interface StoreLike<T> {
  /** The cached object under "ns/name", if any. */
  get(key: string): T | undefined;
  /** Every cached object. */
  list(): Iterable<T>;
}

/** Handlers a controller registers on an informer. */
export interface InformerHandlerLike<T> {
  /** An object appeared. */
  onAdd?(obj: T): void;
  /** An object changed (or was resynced). */
  onUpdate?(oldObj: T, newObj: T): void;
  /** An object disappeared. */
  onDelete?(obj: T, info?: { finalStateUnknown: boolean }): void;
  /** The informer reached the API server again after failing. */
  onRecovered?(): void;
}

/** What a controller needs from an informer; `Informer` from lib/cache satisfies it. */
export interface InformerLike<T extends KubeObject = KubeObject> {
  /** The informer cache. */
  readonly store: StoreLike<T>;
  /** Registers handlers; returns the unsubscribe function. */
  subscribe(handler: InformerHandlerLike<T>): () => void;
  /** Resolves after the first full sync. */
  ready(signal?: AbortSignal): Promise<void>;
  /** True after the first full sync. */
  hasSynced(): boolean;
}

/** Where informers come from; `SharedInformerFactory` satisfies it. */
export interface InformerSource {
  /** The shared informer of a resource. */
  informer<T extends KubeObject>(
    ref: ResourceRef,
    options?: { namespace?: string; labelSelector?: string },
  ): InformerLike<T>;
}
