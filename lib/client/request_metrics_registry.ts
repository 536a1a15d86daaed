import type { RequestMetrics } from "./request_metrics.ts";
import type { MetricsRegistry } from "../metrics/registry.ts";

/** client-go's request latency buckets, in seconds. */
const LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/**
 * Request metrics hooks for `KubeClient`'s `metrics` option, with client-go's names:
 * `rest_client_requests_total{code,method,host}` (code "<error>" when no response arrived) and
 * `rest_client_request_duration_seconds{verb,host}` (time to the response head, so a watch counts
 * until its stream opens). Several clients may share one registry.
 */
export function restClientMetricsFor(registry: MetricsRegistry): RequestMetrics {
  const requests = registry.counter(
    "rest_client_requests_total",
    "Number of HTTP requests, partitioned by status code, method, and host.",
    ["code", "method", "host"],
  );
  const latency = registry.histogram(
    "rest_client_request_duration_seconds",
    "Request latency in seconds. Broken down by verb, and host.",
    { labelNames: ["verb", "host"], buckets: LATENCY_BUCKETS },
  );
  return {
    observe({ method, code, host, durationSeconds }) {
      requests.inc({ code, method, host });
      latency.observe({ verb: method, host }, durationSeconds);
    },
  };
}
