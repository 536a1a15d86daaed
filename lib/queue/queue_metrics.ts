/** How long the work currently being processed has been running, read when metrics are collected. */
export interface InFlightStats {
  /** Sum over every item being processed of the seconds since its `get`. */
  unfinishedWorkSeconds: number;
  /** Seconds since the `get` of the item that has been processing the longest; 0 when idle. */
  longestRunningProcessorSeconds: number;
}

/**
 * Hooks a queue calls so that its behaviour can be measured. The queue never imports a metrics
 * registry: lib/observe's `queueMetricsFor` implements these hooks with Prometheus metrics.
 */
export interface QueueMetrics {
  /** The number of items waiting in the queue after it changed. */
  depth(items: number): void;
  /** An add that made an item dirty (adds collapsed into an already queued item are not counted). */
  added(): void;
  /** Seconds an item waited between the add that made it dirty and the `get` that handed it out. */
  queueLatency(seconds: number): void;
  /** Seconds between `get` and `done` of one item. */
  workDuration(seconds: number): void;
  /** A rate-limited re-add (`addRateLimited`). */
  retried(): void;
  /**
   * Called once by the queue's constructor with a probe of the in-flight work. Metrics read it when
   * collected, so the queue needs no periodic timer to keep "unfinished work" gauges current.
   */
  trackInFlight(probe: () => InFlightStats): void;
}

/** Metrics hooks that do nothing; the default. */
export const noopQueueMetrics: QueueMetrics = {
  depth() {},
  added() {},
  queueLatency() {},
  workDuration() {},
  retried() {},
  trackInFlight() {},
};
