import type { RawWatchEventType } from "../watch/watch_event.ts";

/** What an informer's cache holds, read when metrics are collected. */
export interface CacheSize {
  /** Objects in the store. */
  readonly objects: number;
  /** About how many bytes they take as JSON (see `IndexedStore.bytes`). */
  readonly bytes: number;
}

/**
 * Metric hooks of an informer, labelled by `resource` ("group/version/plural", "v1/pods" for core).
 * The default does nothing, so the cache never depends on a metrics registry.
 */
export interface InformerMetrics {
  /** A full (re)list started. */
  relist(resource: string): void;
  /** A watch request was sent (first one and every restart). */
  watchRestart(resource: string): void;
  /** A watch line could not be decoded. */
  decodeError(resource: string): void;
  /** A wire event arrived. */
  eventReceived(resource: string, type: RawWatchEventType): void;
  /** Time of the last wire event, in ms since the epoch. */
  lastEventTimestamp(resource: string, ms: number): void;
  /** The watcher reported an error (any kind). */
  watchError(resource: string): void;
  /**
   * Called when an informer starts running, with a probe of its cache that metrics read when collected
   * (so no write pays for a gauge update); the informer calls the returned function when it stops.
   * Several informers of one resource (other namespaces or selectors) are several probes. Without it
   * (the no-op default) the informer does not measure its objects' size at all.
   */
  trackCache?(resource: string, probe: () => CacheSize): () => void;
}

/** Metrics that go nowhere; the default. */
export const noopInformerMetrics: InformerMetrics = {
  relist() {},
  watchRestart() {},
  decodeError() {},
  eventReceived() {},
  lastEventTimestamp() {},
  watchError() {},
};
