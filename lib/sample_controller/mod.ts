/**
 * The reference controller: a drop-in for Kubernetes' sample-controller. A `Foo`
 * (`samplecontroller.k8s.io/v1alpha1`) owns an nginx Deployment, server-side applied; status carries
 * `availableReplicas`, `observedGeneration` and a `Ready` condition, written only when it changed. With
 * `--webhook-bind-address` it also serves Foo validation, defaulting and a v1beta1 conversion.
 * @module
 */
// Re-exported because the types and functions below mention them.
export type { KubeObject, ObjectMeta, OwnerReference, ResourceRef } from "../resources/object.ts";
export type { LogFields, Logger } from "../log/logger.ts";
export type { Clock, Timer } from "../time/clock.ts";
export type { OwnsSource, Predicate, TriggerEvent } from "../controller/mod.ts";
export {
  type Deployment,
  FIELD_MANAGER,
  type Foo,
  FOO_API_VERSION,
  FOO_GROUP,
  FOOS,
  type FooSpec,
  type FooStatus,
  type FooStatusCondition,
} from "./types.ts";
export { desiredDeployment } from "./desired_deployment.ts";
export { computeStatus, type ReadyReason, statusEqual, type StatusInput } from "./status.ts";
export { type FooTriggers, fooTriggers, fooUpdateNeedsSync } from "./triggers.ts";
export {
  type ApplyClient,
  type ApplyPatchOptions,
  type CreateOptions,
  type DeploymentReader,
  type FooEvent,
  type FooEventRecorder,
  type FooReconcilerDeps,
  type FooSyncResult,
  type ObjectReader,
  reconcileFoo,
  ResourceExistsError,
} from "./reconcile.ts";
export {
  type ControllerFlags,
  defaultFlags,
  FlagError,
  type LogFormat,
  type LogLevel,
  type ParsedCommand,
  parseFlags,
  usage,
} from "./flags.ts";
export { cli, type CliOptions, type ExitCode } from "./cli.ts";
export { type RunOptions, runSampleController, SERVICE_ACCOUNT_DIR_ENV } from "./app.ts";
export { FOO_REPLICAS, fooConversion, fooDefaulting, fooValidation } from "./foo_webhooks.ts";
export {
  fooWebhookConfigurations,
  type FooWebhookOptions,
  type FooWebhooks,
  serveFooWebhooks,
  WEBHOOK_CONFIGURATION_NAME,
  type WebhookFlags,
} from "./webhook_serving.ts";
export type {
  AdmissionWebhook,
  ConversionWebhook,
  WebhookConfigurations,
  WebhookTarget,
} from "../webhook/mod.ts";
