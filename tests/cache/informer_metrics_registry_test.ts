import assert from "node:assert/strict";
import { informerMetricsFor } from "../../lib/cache/informer_metrics_registry.ts";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";

Deno.test("informer hooks feed the kubeloop_informer_* series labelled by resource", () => {
  const registry = new MetricsRegistry();
  const m = informerMetricsFor(registry);
  m.relist("v1/configmaps");
  m.watchRestart("v1/configmaps");
  m.watchRestart("v1/configmaps");
  m.watchError("v1/configmaps");
  m.decodeError("v1/configmaps");
  m.eventReceived("v1/configmaps", "ADDED");
  m.lastEventTimestamp("v1/configmaps", 1_700_000_000_500);
  const text = registry.render();
  for (
    const line of [
      'kubeloop_informer_relists_total{resource="v1/configmaps"} 1',
      'kubeloop_informer_watch_restarts_total{resource="v1/configmaps"} 2',
      'kubeloop_informer_watch_errors_total{resource="v1/configmaps"} 1',
      'kubeloop_informer_decode_errors_total{resource="v1/configmaps"} 1',
      'kubeloop_informer_events_total{resource="v1/configmaps",type="ADDED"} 1',
      'kubeloop_informer_last_event_timestamp_seconds{resource="v1/configmaps"} 1700000000.5',
    ]
  ) assert.ok(text.split("\n").includes(line), `missing: ${line}\n${text}`);
  // The same registry hands the same series to a second factory.
  informerMetricsFor(registry).relist("v1/configmaps");
  assert.ok(registry.render().includes('kubeloop_informer_relists_total{resource="v1/configmaps"} 2'));
});
