import type { CacheSize, InformerMetrics } from "./informer_metrics.ts";
import type { Gauge } from "../metrics/metric_types.ts";
import type { MetricsRegistry } from "../metrics/registry.ts";

/** The cache probes behind each registry's objects gauge, per resource: one set per registry. */
const probesByGauge = new WeakMap<Gauge, Map<string, Set<() => CacheSize>>>();

/**
 * Informer metrics hooks backed by `registry`. No peer exposes these; they answer "is my cache
 * still being fed?", labelled `{resource}` ("apps/v1/deployments"):
 * kubeloop_informer_relists_total, kubeloop_informer_watch_restarts_total,
 * kubeloop_informer_watch_errors_total, kubeloop_informer_decode_errors_total,
 * kubeloop_informer_events_total{type} and kubeloop_informer_last_event_timestamp_seconds
 * (alert on `time() - kubeloop_informer_last_event_timestamp_seconds` growing past the watch timeout),
 * and what the caches hold: kubeloop_informer_cache_objects and kubeloop_informer_cache_bytes (about
 * the objects' length as JSON, after managedFields are stripped; summed over the informers of a
 * resource; read from the stores when the registry renders).
 */
export function informerMetricsFor(registry: MetricsRegistry): InformerMetrics {
  const labelNames = ["resource"];
  const relists = registry.counter(
    "kubeloop_informer_relists_total",
    "Full lists started by informers.",
    labelNames,
  );
  const restarts = registry.counter(
    "kubeloop_informer_watch_restarts_total",
    "Watch requests sent by informers (the first one and every restart).",
    labelNames,
  );
  const errors = registry.counter(
    "kubeloop_informer_watch_errors_total",
    "Errors reported by informer watches (network, server, decoding); each is retried with backoff.",
    labelNames,
  );
  const decodeErrors = registry.counter(
    "kubeloop_informer_decode_errors_total",
    "Watch stream lines that could not be decoded; the watch restarts from the last good resourceVersion.",
    labelNames,
  );
  const events = registry.counter(
    "kubeloop_informer_events_total",
    "Watch events received by informers, by type.",
    ["resource", "type"],
  );
  const lastEvent = registry.gauge(
    "kubeloop_informer_last_event_timestamp_seconds",
    "Unix time of the last watch event an informer received (bookmarks included).",
    labelNames,
  );
  const objects = registry.gauge(
    "kubeloop_informer_cache_objects",
    "Objects held in informer caches.",
    labelNames,
  );
  const bytes = registry.gauge(
    "kubeloop_informer_cache_bytes",
    "Approximate size of the objects held in informer caches, as the length of their JSON (not heap size).",
    labelNames,
  );
  let probes = probesByGauge.get(objects);
  if (!probes) probesByGauge.set(objects, probes = new Map());
  const byResource = probes;
  const sum = (resource: string, field: keyof CacheSize) => () => {
    let total = 0;
    for (const probe of byResource.get(resource) ?? []) total += probe()[field];
    return total;
  };
  return {
    trackCache(resource, probe) {
      const set = byResource.get(resource) ?? new Set();
      if (!byResource.has(resource)) {
        byResource.set(resource, set);
        objects.setFunction({ resource }, sum(resource, "objects"));
        bytes.setFunction({ resource }, sum(resource, "bytes"));
      }
      set.add(probe);
      return () => void set.delete(probe);
    },
    relist: (resource) => relists.inc({ resource }),
    watchRestart: (resource) => restarts.inc({ resource }),
    watchError: (resource) => errors.inc({ resource }),
    decodeError: (resource) => decodeErrors.inc({ resource }),
    eventReceived: (resource, type) => events.inc({ resource, type }),
    lastEventTimestamp: (resource, ms) => lastEvent.set({ resource }, ms / 1000),
  };
}
