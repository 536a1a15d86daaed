import type { QueueMetrics } from "./queue_metrics.ts";
import { exponentialBuckets } from "../metrics/exposition.ts";
import type { MetricsRegistry } from "../metrics/registry.ts";

/** controller-runtime's workqueue duration buckets: 10 ns to 1000 s, one per power of ten. */
const DURATION_BUCKETS = exponentialBuckets(1e-8, 10, 12);

/**
 * Queue metrics hooks backed by `registry`, with controller-runtime's metric names, labelled
 * `{name}`: workqueue_depth, workqueue_adds_total, workqueue_queue_duration_seconds,
 * workqueue_work_duration_seconds, workqueue_unfinished_work_seconds,
 * workqueue_longest_running_processor_seconds and workqueue_retries_total. The two in-flight gauges
 * are read from the queue when the registry renders. Several queues share the metrics, one series
 * per name; a second queue with the same name takes the series over.
 */
export function queueMetricsFor(registry: MetricsRegistry, name: string): QueueMetrics {
  const labels = { name };
  const labelNames = ["name"];
  const depth = registry.gauge("workqueue_depth", "Current depth of the workqueue.", labelNames);
  const adds = registry.counter(
    "workqueue_adds_total",
    "Total number of adds handled by the workqueue.",
    labelNames,
  );
  const queueDuration = registry.histogram(
    "workqueue_queue_duration_seconds",
    "How long in seconds an item stays in the workqueue before being requested.",
    { labelNames, buckets: DURATION_BUCKETS },
  );
  const workDuration = registry.histogram(
    "workqueue_work_duration_seconds",
    "How long in seconds processing an item from the workqueue takes.",
    { labelNames, buckets: DURATION_BUCKETS },
  );
  const unfinished = registry.gauge(
    "workqueue_unfinished_work_seconds",
    "How many seconds of work has been done that is in progress and has not been observed by " +
      "work_duration. Large values indicate stuck threads.",
    labelNames,
  );
  const longest = registry.gauge(
    "workqueue_longest_running_processor_seconds",
    "How many seconds the longest running processor of the workqueue has been running.",
    labelNames,
  );
  const retries = registry.counter(
    "workqueue_retries_total",
    "Total number of retries handled by the workqueue.",
    labelNames,
  );
  // Create every series now so dashboards see zeros before the first event.
  adds.inc(labels, 0);
  retries.inc(labels, 0);
  depth.set(labels, 0);
  unfinished.set(labels, 0);
  longest.set(labels, 0);
  queueDuration.get(labels);
  workDuration.get(labels);
  return {
    depth: (items) => depth.set(labels, items),
    added: () => adds.inc(labels),
    queueLatency: (seconds) => queueDuration.observe(labels, seconds),
    workDuration: (seconds) => workDuration.observe(labels, seconds),
    retried: () => retries.inc(labels),
    trackInFlight(probe) {
      unfinished.setFunction(labels, () => probe().unfinishedWorkSeconds);
      longest.setFunction(labels, () => probe().longestRunningProcessorSeconds);
    },
  };
}
