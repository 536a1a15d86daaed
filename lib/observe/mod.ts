/**
 * Observability: a structured logger, a Prometheus metrics registry, workqueue and REST client metrics and the
 * `/metrics`, `/healthz`, `/readyz` server; metrics over HTTPS (certificate files followed as they change, or
 * a generated self-signed certificate) with an injected scrape authorizer.
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
export {
  isCertificateHost,
  selfSignedCertificate,
  type SelfSignedOptions,
  type TlsMaterial,
} from "./self_signed.ts";
export {
  CertificateError,
  type CertificateSource,
  checkTlsMaterial,
  generatedCertificate,
  type GeneratedCertificateOptions,
  staticCertificate,
} from "./certificate_source.ts";
export { certificateFiles, type CertificateFilesOptions } from "./certificate_files.ts";
export type { ScrapeAuthorizer, ScrapeDecision, ScrapeRequest } from "./scrape_auth.ts";
export { bearerToken } from "./metrics_auth.ts";
export type { Clock, Timer } from "../time/clock.ts";
