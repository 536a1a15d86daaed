/**
 * Controllers: informer triggers (self, owned, mapped) -> keys -> rate-limited queue -> N workers ->
 * reconcile; predicates; the Manager (informers, leader election, health and metrics, graceful
 * shutdown); signal handling for main.ts.
 * @module
 */
export {
  Controller,
  type ControllerOptions,
  type ControllerRunOptions,
  type ControllerShard,
  type OwnsSource,
  type PrimarySource,
  type WatchesSource,
} from "./controller.ts";
export { ownsSource, watchesSource } from "./controller_options.ts";
export {
  type InformerFactoryLike,
  LeaderElectionLostError,
  Manager,
  type ManagerLeaderElection,
  type ManagerOptions,
  type ManagerShard,
} from "./manager.ts";
export { installSignalHandlers, type SignalHandlerOptions } from "./signals.ts";
export {
  type ControllerMetrics,
  controllerMetricsFor,
  noopControllerMetrics,
  type ReconcileResult,
} from "./metrics.ts";
export {
  AlreadyOwnedError,
  controllerOf,
  controllerReference,
  groupOf,
  isControlledBy,
  requestFor,
  requestForController,
  setControllerReference,
} from "./owner.ts";
export {
  formatLabelSelector,
  type LabelSelector,
  matchesLabels,
  validateLabelSelector,
} from "./label_selector.ts";
export {
  type ConditionFields,
  findCondition,
  formatTime,
  isConditionTrue,
  setCondition,
} from "./conditions.ts";
export {
  addFinalizer,
  type FinalizerClient,
  type FinalizerOptions,
  hasFinalizer,
  isTerminating,
  removeFinalizer,
  terminatingForMs,
} from "./finalizers.ts";
export { finalizer, type FinalizerFlowOptions, type FinalizerHandlers } from "./finalizer_flow.ts";
export {
  apply,
  type ApplyConfiguration,
  type ApplyMetadata,
  type ApplyOptions,
  applyWouldChange,
  containsFields,
  type DeepPartial,
} from "./apply.ts";
export { createOrPatch, type CreateOrPatchOptions, type CreateOrPatchResult } from "./create_or_patch.ts";
export { jsonEqual, mergePatch } from "./merge_patch.ts";
export {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  labelsMatch,
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
  ReconcileRequest,
  TriggerEvent,
} from "./types.ts";
export type { KubeObject, ObjectMeta, OwnerReference, ResourceRef } from "../resources/object.ts";
export type { InformerHandler, Store } from "../cache/mod.ts";
export type { DeepReadonly } from "../resources/mod.ts";
export type { ResourceClient } from "../client/mod.ts";
export type { Logger } from "../log/logger.ts";
export type { MetricsRegistry } from "../metrics/registry.ts";
export type { RateLimiter, RateLimitingQueue } from "../queue/mod.ts";
export type { Clock } from "../time/clock.ts";
