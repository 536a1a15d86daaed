/**
 * A Prometheus metrics registry (counters, gauges, histograms) and its text exposition. Each area binds
 * its own metric hooks to a registry beside the code it measures (`queueMetricsFor`, `informerMetricsFor`,
 * `restClientMetricsFor`).
 * @module
 */
export { type HistogramOptions, type MetricOptions, MetricsRegistry } from "./registry.ts";
export { Counter, Gauge, Histogram, type HistogramState, Metric, type MetricType } from "./metric_types.ts";
export { DEFAULT_BUCKETS, exponentialBuckets, type Labels } from "./exposition.ts";
