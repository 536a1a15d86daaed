/**
 * kubeloop: Kubernetes controllers in TypeScript on Deno.
 *
 * This module is the public API, listed name by name. The package has three more entry points:
 * `./testing` (FakeApi, fake informers and clocks, `startTestEnv`), `./codegen` (type generators) and
 * `./resources` (every generated Kubernetes type; the kinds a controller meets most are also here).
 * Names marked `@experimental` may still change in a minor release; everything else follows semver.
 * docs/architecture.md shows how the folders behind these names fit together.
 *
 * @example A controller that stamps every ConfigMap labelled `example.com/stamp=yes`
 * ```ts
 * import {
 *   apply,
 *   CONFIG_MAPS,
 *   KubeClient,
 *   loadConfig,
 *   Manager,
 *   SharedInformerFactory,
 *   sleep,
 * } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * const informers = new SharedInformerFactory(client);
 * const scope = { labelSelector: "example.com/stamp=yes" };
 * const configMaps = informers.informer(CONFIG_MAPS, scope); // the same informer the controller gets
 * // "0": no /metrics and /healthz servers here; a program keeps the defaults (:8080 and :8081).
 * const manager = new Manager(informers, { metricsAddress: "0", healthAddress: "0" });
 * manager.controller({
 *   name: "configmap-stamp",
 *   for: { ref: CONFIG_MAPS, ...scope },
 *   async reconcile({ namespace, name }, { signal }) {
 *     const cm = configMaps.store.getByName(name, namespace); // read the cache, not the server
 *     if (cm === undefined || cm.metadata.annotations?.["example.com/stamped"]) return; // gone, or done
 *     const metadata = { name, namespace, annotations: { "example.com/stamped": "yes" } };
 *     await apply(client, CONFIG_MAPS, { apiVersion: "v1", kind: "ConfigMap", metadata }, {
 *       fieldManager: "configmap-stamp",
 *       signal,
 *     });
 *   },
 * });
 * const stop = new AbortController(); // a program aborts it on SIGTERM (see installSignalHandlers)
 * const running = manager.run({ signal: stop.signal });
 *
 * // See it work: create a labelled ConfigMap and wait for the stamp.
 * const { namespace } = client;
 * const name = `example-${crypto.randomUUID().slice(0, 8)}`;
 * await client.create(CONFIG_MAPS, {
 *   metadata: { name, namespace, labels: { "example.com/stamp": "yes" } },
 * });
 * while (
 *   !(await client.get(CONFIG_MAPS, name, { namespace })).metadata.annotations?.["example.com/stamped"]
 * ) {
 *   await sleep(50);
 * }
 * stop.abort();
 * await running;
 * await client.delete(CONFIG_MAPS, name, { namespace });
 * ```
 * @module
 */

// Time and logging: the ground floor every other part takes.
export { type Clock, sleep, systemClock, type Timer } from "./time/clock.ts";
export { type LogFields, type Logger, noopLogger } from "./log/logger.ts";
export { createLogger, type LogFormat, type LoggerOptions, type LogLevel } from "./log/create_logger.ts";

// Kubernetes objects and the typed refs of the built-in kinds.
export type {
  KubeObject,
  ListMeta,
  ObjectList,
  ObjectMeta,
  OwnerReference,
  PartialObjectMetadata,
  ResourceRef,
  Status,
  UnstructuredObject,
} from "./resources/object.ts";
export { type DeepMutable, type DeepReadonly, mutableCopy } from "./resources/deep_readonly.ts";
export { apiVersionOf } from "./resources/api_version.ts";
export {
  CONFIG_MAPS,
  CRON_JOBS,
  CUSTOM_RESOURCE_DEFINITIONS,
  DAEMON_SETS,
  DEPLOYMENTS,
  EVENTS,
  JOBS,
  LEASES,
  MUTATING_WEBHOOK_CONFIGURATIONS,
  NAMESPACES,
  NODES,
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  REPLICA_SETS,
  SECRETS,
  SERVICE_ACCOUNTS,
  SERVICES,
  STATEFUL_SETS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
} from "./resources/refs.ts";
export type { Condition, LabelSelector } from "./resources/apimachinery.ts";
export type {
  ConfigMap,
  Namespace,
  Node,
  PersistentVolumeClaim,
  Pod,
  Secret,
  Service,
  ServiceAccount,
} from "./resources/core_v1.ts";
export type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from "./resources/apps_v1.ts";
export type { CronJob, Job } from "./resources/batch_v1.ts";
export type { Event } from "./resources/events_v1.ts";
export type { Lease } from "./resources/coordination_v1.ts";
export type { CustomResourceDefinition } from "./resources/apiextensions_v1.ts";

// Connecting: configuration and the HTTP transport.
export { loadConfig, type LoadConfigOptions } from "./config/load_config.ts";
export { inClusterConfig, type InClusterOptions, isInCluster } from "./config/in_cluster.ts";
export type { ClusterConfig, Credentials, CredentialSource } from "./config/types.ts";
export { ConfigError, type ConfigErrorReason } from "./config/config_error.ts";
export { staticCredentials } from "./config/static_credentials.ts";
export type { ExecResult, ExecRunner, ExecRunOptions } from "./config/exec_runner.ts";
export { HttpClient, type HttpClientOptions } from "./http/client.ts";
export type { HttpRequest, HttpResponse, TlsOptions, Transport } from "./http/types.ts";
export {
  BodyTooLargeError,
  ConnectError,
  HttpError,
  ProtocolError,
  TimeoutError,
  TlsError,
} from "./http/errors.ts";

// The API client.
export { KubeClient } from "./client/kube_client.ts";
export type { ResourceClient } from "./client/resource_client.ts";
export type { WriteEnd, WriteListener, WriteSource, WriteStart, WriteVerb } from "./client/write_listener.ts";
export type {
  DeleteOptions,
  KubeClientOptions,
  ListPage,
  ObjectOptions,
  PatchOptions,
  PatchType,
  WriteFence,
  WriteOptions,
} from "./client/client_options.ts";
export type { ListOptions, RawWatchOptions, RequestOptions, SelectorOptions } from "./client/types.ts";
export { ApiError } from "./client/api_error.ts";
export { objectKey, splitKey } from "./client/paths.ts";
export type { RequestMetrics, RequestObservation } from "./client/request_metrics.ts";
export { restClientMetricsFor } from "./client/request_metrics_registry.ts";

// Watching.
export type { BookmarkObject, RawWatchEvent, RawWatchEventType } from "./watch/watch_event.ts";
export { watcher, type WatcherHooks, type WatcherOptions } from "./watch/watcher.ts";
export type { WatcherEvent } from "./watch/watcher_event.ts";
export type { InitialListMode } from "./watch/watcher_state.ts";
export type { ListWatcher } from "./watch/list_watcher.ts";
export { Backoff, type BackoffOptions, withBackoff, type WithBackoffOptions } from "./watch/backoff.ts";
export { WatchDecodeError, type WatchDecodeErrorReason } from "./watch/watch_decode_error.ts";
export { WatchDeadlineError } from "./watch/watch_deadline_error.ts";
export { WatchEndedEarlyError } from "./watch/watch_ended_early_error.ts";
export { WatchIdleTimeoutError } from "./watch/watch_idle_timeout_error.ts";

// Tracing: spans through the OpenTelemetry API when Deno exports them (OTEL_DENO=true).
export { enableTracing, tracingEnabled } from "./trace/tracing.ts";

// The cache.
export {
  type ChangeInfo,
  Informer,
  type InformerHandler,
  type InformerOptions,
  type SyncError,
  type SyncStatus,
} from "./cache/informer.ts";
export {
  type InformerScope,
  SharedInformerFactory,
  type SharedInformerFactoryOptions,
  type SharedInformerOptions,
} from "./cache/shared_informer_factory.ts";
export { IndexedStore, type Indexers, type IndexFunc, NAMESPACE_INDEX, type Store } from "./cache/store.ts";
export type { StoreChange } from "./cache/store_writer.ts";
export type { WriteOrigin } from "./_internal/write_origin.ts";
export { compareResourceVersions } from "./cache/resource_version.ts";
export type { CacheSize, InformerMetrics } from "./cache/informer_metrics.ts";
export type { ChangeSource } from "./cache/change_source.ts";
export type { InformerPartition } from "./cache/informer_partition.ts";
export { informerMetricsFor } from "./cache/informer_metrics_registry.ts";

// The work queue.
export {
  type AddOptions,
  type GetOptions,
  LOW_PRIORITY,
  type ShutDownOptions,
  WorkQueue,
  type WorkQueueOptions,
} from "./queue/work_queue.ts";
export { DelayingQueue, type DelayingQueueOptions } from "./queue/delaying_queue.ts";
export { RateLimitingQueue, type RateLimitingQueueOptions } from "./queue/rate_limiting_queue.ts";
export {
  type BucketOptions,
  bucketRateLimiter,
  defaultControllerRateLimiter,
  type DefaultControllerRateLimiterOptions,
  type ExponentialFailureOptions,
  exponentialFailureRateLimiter,
  maxOfRateLimiter,
  type RateLimiter,
} from "./queue/rate_limiters.ts";
export type { InFlightStats, QueueMetrics } from "./queue/queue_metrics.ts";
export { queueMetricsFor } from "./queue/queue_metrics_registry.ts";

// Controllers and the manager that runs them.
export {
  Controller,
  type ControllerOptions,
  type ControllerRunOptions,
  type ControllerShard,
  type OwnsSource,
  type PrimarySource,
  type WatchesSource,
} from "./controller/controller.ts";
export { ownsSource, watchesSource } from "./controller/controller_options.ts";
export type {
  Action,
  InformerLike,
  InformerSource,
  Predicate,
  ReconcileContext,
  Reconciler,
  ReconcileRequest,
  TriggerEvent,
} from "./controller/types.ts";
export {
  Manager,
  type ManagerLeaderElection,
  type ManagerOptions,
  type ManagerShard,
} from "./controller/manager.ts";
export { installSignalHandlers, type SignalHandlerOptions } from "./controller/signals.ts";
export {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  labelsMatch,
  not,
  or,
  resourceVersionChanged,
} from "./controller/predicates.ts";
export {
  apply,
  type ApplyConfiguration,
  type ApplyMetadata,
  type ApplyOptions,
  type DeepPartial,
} from "./controller/apply.ts";
export {
  createOrPatch,
  type CreateOrPatchOptions,
  type CreateOrPatchResult,
} from "./controller/create_or_patch.ts";
export {
  type ConditionFields,
  findCondition,
  isConditionTrue,
  setCondition,
} from "./controller/conditions.ts";
export {
  AlreadyOwnedError,
  controllerOf,
  controllerReference,
  isControlledBy,
  requestFor,
  requestForController,
  setControllerReference,
} from "./controller/owner.ts";
export {
  addFinalizer,
  type FinalizerClient,
  type FinalizerOptions,
  hasFinalizer,
  isTerminating,
  removeFinalizer,
} from "./controller/finalizers.ts";
export { finalizer, type FinalizerFlowOptions, type FinalizerHandlers } from "./controller/finalizer_flow.ts";
export { matchesLabels } from "./controller/label_selector.ts";
export { jsonEqual } from "./controller/merge_patch.ts";
export { type ControllerMetrics, controllerMetricsFor, type ReconcileResult } from "./controller/metrics.ts";

// Leader election, events.
export { LeaderElector, type LeaderElectorOptions, type LeaderMetrics } from "./leader/elector.ts";
export { LeaderElectionLostError, NotLeaderError } from "./leader/errors.ts";
export { LeaseFence, type LeaseFenceOptions } from "./leader/lease_fence.ts";
export type { LeaseClient, LeaseRequestOptions } from "./leader/lease_client.ts";
export { leaderMetricsFor } from "./leader/leader_metrics_registry.ts";

// Scale-out: replicas sharing the work by hash range.
export { type ShardClient, ShardCoordinator, type ShardTicket } from "./shard/shard_coordinator.ts";
export type { ShardCoordinatorOptions } from "./shard/shard_coordinator_options.ts";
export { NotShardOwnerError, ShardConfigError, type ShardConfigReason } from "./shard/errors.ts";
export { type FenceTicket, ShardFence } from "./shard/shard_fence.ts";
export { type PartitionSource, ShardPartition } from "./shard/shard_partition.ts";
export { rangeOf } from "./shard/hash_range.ts";
export { type ShardKey, shardSelector } from "./shard/shard_selector.ts";
export type { SelectorSupport } from "./shard/selector_probe.ts";
export type { ReviewCreator } from "./shard/permissions.ts";
export {
  type EventInfo,
  EventRecorder,
  type EventRecorderOptions,
  type EventSink,
  type FlushOptions,
} from "./events/recorder.ts";
export type { EventRequestOptions, EventsClient, EventType } from "./events/types.ts";
export type { SpamFilterOptions } from "./events/spam_filter.ts";

// Metrics, probes and the server that exposes them.
export { type HistogramOptions, type MetricOptions, MetricsRegistry } from "./metrics/registry.ts";
export {
  Counter,
  Gauge,
  Histogram,
  type HistogramState,
  Metric,
  type MetricType,
} from "./metrics/metric_types.ts";
export { DEFAULT_BUCKETS, exponentialBuckets, type Labels } from "./metrics/exposition.ts";
export { type Check, type CheckFailure, type CheckResult } from "./observe/probe.ts";
export {
  type ListenAddress,
  type ObservabilityOptions,
  type ObservabilityServer,
  serveObservability,
} from "./observe/server.ts";
export {
  CertificateError,
  type CertificateSource,
  generatedCertificate,
  type GeneratedCertificateOptions,
  staticCertificate,
} from "./observe/certificate_source.ts";
export { certificateFiles, type CertificateFilesOptions } from "./observe/certificate_files.ts";
export type { ScrapeAuthorizer, ScrapeDecision, ScrapeRequest } from "./observe/scrape_auth.ts";
export { KubeScrapeAuthorizer, type KubeScrapeAuthorizerOptions } from "./auth/kube_scrape_authorizer.ts";
export { selfSignedCertificate, type SelfSignedOptions } from "./x509/self_signed.ts";
export { issueCertificate, type IssueOptions, type TlsMaterial } from "./x509/issue_certificate.ts";

// Admission and conversion webhooks (docs/webhooks.md).
export {
  ADMISSION_REVIEW_API_VERSION,
  type AdmissionContext,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReview,
  type AdmissionVerdict,
  type AdmissionWebhook,
  allow,
  Allowed,
  ALWAYS_EXCLUDED_NAMESPACES,
  type ConnectionLimits,
  CONVERSION_REVIEW_API_VERSION,
  type ConversionRequest,
  type ConversionResponse,
  type ConversionReview,
  type ConversionWebhook,
  conversionWebhook,
  type ConversionWebhookOptions,
  crdConversion,
  type CrdConversionOptions,
  DEFAULT_WEBHOOK_LIMITS,
  Denied,
  deny,
  type DenyOptions,
  diffJson,
  type FailurePolicy,
  type GroupVersionKind,
  type GroupVersionResource,
  type JsonPatchOperation,
  type JsonValue,
  mutatingWebhook,
  type MutatingWebhookOptions,
  type Mutator,
  noopWebhookMetrics,
  type Operation,
  type ReviewOptions,
  serveWebhooks,
  SideEffectError,
  type SideEffects,
  type Spoke,
  spoke,
  type SpokeConverters,
  type UserInfo,
  validatingWebhook,
  type ValidatingWebhookOptions,
  type Validator,
  type WebhookConfigurations,
  webhookConfigurations,
  type WebhookConfigurationsOptions,
  type WebhookMetrics,
  webhookMetricsFor,
  type WebhookOptions,
  type WebhookRefusal,
  type WebhookServer,
  type WebhookServerLimits,
  type WebhookServerOptions,
  type WebhookTarget,
} from "./webhook/mod.ts";
export {
  type CaBundleTargets,
  DEFAULT_ROTATION_POLICY,
  type RotationPolicy,
  rotationPolicy,
  type SelfManagedCertificates,
  selfManagedCertificates,
  type SelfManagedCertificatesOptions,
} from "./webhook_certs/mod.ts";
