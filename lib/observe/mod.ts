/**
 * Observability: a structured logger, a Prometheus metrics registry, workqueue and REST client metrics and the
 * `/metrics`, `/healthz`, `/readyz` server.
 * @module
 */
export { type LogFields, type Logger, noopLogger } from "./types.ts";
export { createLogger, type LogFormat, type LoggerOptions, type LogLevel } from "./logger.ts";
export { type HistogramOptions, type MetricOptions, MetricsRegistry } from "./metrics.ts";
export { Counter, Gauge, Histogram, type HistogramState, Metric, type MetricType } from "./metric_types.ts";
export { DEFAULT_BUCKETS, exponentialBuckets, type Labels } from "./exposition.ts";
export { informerMetricsFor } from "./informer_metrics.ts";
export { queueMetricsFor } from "./queue_metrics.ts";
export { restClientMetricsFor } from "./rest_client_metrics.ts";
export {
  type Check,
  type CheckResult,
  type ListenAddress,
  type ObservabilityOptions,
  type ObservabilityServer,
  parseListenAddress,
  serveObservability,
} from "./server.ts";
export type { Clock, Timer } from "../time/clock.ts";
