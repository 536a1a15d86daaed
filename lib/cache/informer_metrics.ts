import type { RawWatchEventType } from "../watch/watch_event.ts";

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
