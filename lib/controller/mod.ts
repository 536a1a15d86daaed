/**
 * Controllers: informer triggers (self, owned, mapped) -> keys -> rate-limited queue -> N workers ->
 * reconcile; predicates; the Manager (informers, leader election, health and metrics, graceful
 * shutdown); signal handling for main.ts.
 * @module
 */
export {
  type Controller,
  controller,
  type ControllerOptions,
  type OwnsSource,
  type WatchesSource,
} from "./controller.ts";
export {
  type InformerFactoryLike,
  LeaderElectionLostError,
  Manager,
  type ManagerLeaderElection,
  type ManagerOptions,
} from "./manager.ts";
export { installSignalHandlers, type SignalHandlerOptions } from "./signals.ts";
export {
  type ControllerMetrics,
  controllerMetricsFor,
  leaderMetricsFor,
  noopControllerMetrics,
  type ReconcileResult,
} from "./metrics.ts";
export { controllerOf, groupOf, requestFor, requestForController } from "./owner.ts";
export {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  type LabelSelector,
  labelSelector,
  matchesLabels,
  not,
  or,
  resourceVersionChanged,
} from "./predicates.ts";
export type {
  Action,
  InformerLike,
  InformerSource,
  Predicate,
  ReconcileContext,
  Reconciler,
  Request,
  TriggerEvent,
} from "./types.ts";
export type { KubeObject, ObjectMeta, OwnerReference, ResourceRef } from "../client/types.ts";
export type { InformerHandler, Store } from "../cache/mod.ts";
export type { Logger, MetricsRegistry } from "../observe/mod.ts";
export type { RateLimiter, RateLimitingQueue } from "../queue/mod.ts";
export type { Clock } from "../time/clock.ts";
