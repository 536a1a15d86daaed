/**
 * Caching: the indexed {@linkcode Store}, the {@linkcode StoreWriter} that applies watcher events
 * with an atomic swap after each list, the {@linkcode Informer} (watcher + backoff + store +
 * subscribers) and the reference-counted {@linkcode SharedInformerFactory}.
 * @module
 */
// Re-exported so this module's documentation is self-contained.
export type { KubeObject, ResourceRef } from "../client/types.ts";
export type { ListWatcher } from "../watch/list_watcher.ts";
export { Informer, type InformerHandler, type InformerOptions, resourceName } from "./informer.ts";
export { type InformerMetrics, noopInformerMetrics } from "./informer_metrics.ts";
export {
  type InformerScope,
  SharedInformerFactory,
  type SharedInformerFactoryOptions,
  type SharedInformerOptions,
} from "./shared_informer_factory.ts";
export { type IndexFunc, IndexedStore, type Indexers, NAMESPACE_INDEX, objectKey, type Store } from "./store.ts";
export { type StoreChange, StoreWriter } from "./store_writer.ts";
export { stripManagedFields } from "./strip_managed_fields.ts";
