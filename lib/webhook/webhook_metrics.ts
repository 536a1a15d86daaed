/**
 * The webhook server's metric hooks (no-ops unless bound to a registry), with controller-runtime's names.
 * @module
 */
import type { MetricsRegistry } from "../metrics/registry.ts";

/** Why the server refused a connection or request before a handler saw it. */
export type WebhookRefusal =
  | "handshake"
  | "max-connections"
  | "timeout"
  | "too-large"
  | "malformed"
  | "flood"
  | "write-timeout";

/** What the webhook server reports. */
export interface WebhookMetrics {
  /** A request to `path` (a webhook's path, or "other") was answered with `code` after `seconds`. */
  answered(path: string, code: number, seconds: number): void;
  /** A request to `path` started (+1) or ended (-1). */
  inFlight(path: string, delta: 1 | -1): void;
  /** A connection or request was refused before any handler saw it. */
  refused(reason: WebhookRefusal): void;
}

/** Hooks that record nothing. */
export const noopWebhookMetrics: WebhookMetrics = {
  answered() {},
  inFlight() {},
  refused() {},
};

/** controller-runtime's webhook latency buckets, in seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Hooks that record into `registry`: `controller_runtime_webhook_requests_total{webhook,code}`,
 * `controller_runtime_webhook_latency_seconds{webhook}` and `controller_runtime_webhook_requests_in_flight
 * {webhook}` (the label is the webhook's path, as in controller-runtime), and
 * `kubeloop_webhook_refused_total{reason}` for connections and requests refused by the server's limits.
 */
export function webhookMetricsFor(registry: MetricsRegistry): WebhookMetrics {
  const requests = registry.counter(
    "controller_runtime_webhook_requests_total",
    "Total number of admission requests by HTTP status code.",
    ["webhook", "code"],
  );
  const latency = registry.histogram(
    "controller_runtime_webhook_latency_seconds",
    "Histogram of the latency of processing admission requests",
    { labelNames: ["webhook"], buckets: LATENCY_BUCKETS },
  );
  const inFlight = registry.gauge(
    "controller_runtime_webhook_requests_in_flight",
    "Current number of admission requests being served.",
    ["webhook"],
  );
  const refused = registry.counter(
    "kubeloop_webhook_refused_total",
    "Connections and requests the webhook server refused before a handler saw them, by reason.",
    ["reason"],
  );
  return {
    answered(path, code, seconds) {
      requests.inc({ webhook: path, code: String(code) });
      latency.observe({ webhook: path }, seconds);
    },
    inFlight(path, delta) {
      inFlight.inc({ webhook: path }, delta);
    },
    refused(reason) {
      refused.inc({ reason });
    },
  };
}
