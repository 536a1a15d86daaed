/**
 * Caching: the indexed {@linkcode Store}, the {@linkcode StoreWriter} that applies watcher events
 * with an atomic swap after each list, the {@linkcode Informer} (watcher + backoff + store +
 * subscribers) and the reference-counted {@linkcode SharedInformerFactory}.
 * @module
 */
// Re-exported so this module's documentation is self-contained.
export type {
  BackoffOptions,
  BookmarkObject,
  Clock,
  InitialListMode,
  KubeObject,
  ListMeta,
  ListOptions,
  ListWatcher,
  LogFields,
  Logger,
  ObjectList,
  ObjectMeta,
  OwnerReference,
  RawWatchEventType,
  RawWatchOptions,
  RequestOptions,
  ResourceRef,
  SelectorOptions,
  Status,
  Timer,
  WatcherEvent,
  WatcherHooks,
  WatcherOptions,
} from "../watch/mod.ts";
export type { WriteOrigin } from "../_internal/write_origin.ts";
export type { WriteSource } from "../client/write_listener.ts";
export type { ChangeSource } from "./change_source.ts";
export {
  type ChangeInfo,
  Informer,
  type InformerHandler,
  type InformerOptions,
  resourceName,
  type SyncError,
  type SyncStatus,
} from "./informer.ts";
export { type CacheSize, type InformerMetrics, noopInformerMetrics } from "./informer_metrics.ts";
export type { InformerPartition } from "./informer_partition.ts";
export {
  type InformerScope,
  SharedInformerFactory,
  type SharedInformerFactoryOptions,
  type SharedInformerOptions,
} from "./shared_informer_factory.ts";
export { compareResourceVersions } from "./resource_version.ts";
export { IndexedStore, type Indexers, type IndexFunc, NAMESPACE_INDEX, type Store } from "./store.ts";
export { type StoreChange, StoreWriter } from "./store_writer.ts";
export { stripManagedFields } from "./strip_managed_fields.ts";
