/**
 * `events.k8s.io/v1` Events written by EventRecorder to the real API server, read back the way an
 * operator does: `kubectl describe` and `kubectl get events`.
 */
import assert from "node:assert/strict";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { CONFIG_MAPS, type KubeObject } from "../../lib/resources/mod.ts";
import { Manager } from "../../lib/controller/mod.ts";
import { type Event, EventRecorder } from "../../lib/events/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { createNamespace, eventually, kubectlOk } from "../_util/testenv.ts";

/** Every events.k8s.io/v1 Event of the namespace. */
async function eventsIn(namespace: string): Promise<Event[]> {
  const out = await kubectlOk(["get", "events.v1.events.k8s.io", "-n", namespace, "-o", "json"]);
  return (JSON.parse(out) as { items: Event[] }).items;
}

async function eventsWithReason(namespace: string, reason: string): Promise<Event[]> {
  return (await eventsIn(namespace)).filter((e) => e.reason === reason);
}

Deno.test("repeats of one event become one Event whose series.count grows, shown by kubectl describe and get events", async () => {
  await using ns = await createNamespace("events-series");
  await kubectlOk(["create", "configmap", "x", "-n", ns.name]);
  await using client = await adminClient();
  const configMap = await client.get<KubeObject>(CONFIG_MAPS, "x", { namespace: ns.name });
  await using recorder = new EventRecorder(client, {
    reportingController: "kubeloop.dev/integration",
    reportingInstance: "integration-1",
    seriesPatchIntervalMs: 500,
  });
  const failure = { type: "Warning", reason: "SyncFailed", note: "cannot sync: quota exceeded" } as const;

  recorder.record(configMap, failure);
  await recorder.flush();
  const [first, ...others] = await eventsWithReason(ns.name, "SyncFailed");
  assert.ok(first, "the first occurrence was written");
  assert.deepEqual(others, []);
  assert.equal(first.regarding?.uid, configMap.metadata.uid);
  assert.equal(first.reportingController, "kubeloop.dev/integration");
  assert.equal(first.series, undefined);

  for (let i = 0; i < 4; i++) recorder.record(configMap, failure);
  // No flush: the series patch goes out on its own after the patch interval.
  const afterFive = await eventually(async () => {
    const events = await eventsWithReason(ns.name, "SyncFailed");
    return events[0]?.series?.count === 5 ? events : undefined;
  }, { timeoutMs: 10_000, message: "series.count did not reach 5" });
  assert.equal(afterFive.length, 1, "repeats did not create new Events");
  assert.equal(afterFive[0]?.metadata.name, first.metadata.name);

  for (let i = 0; i < 3; i++) recorder.record(configMap, failure);
  recorder.record(configMap, { type: "Normal", reason: "Synced", note: "synced after all" });
  const afterEight = await eventually(async () => {
    const events = await eventsWithReason(ns.name, "SyncFailed");
    return events[0]?.series?.count === 8 ? events : undefined;
  }, { timeoutMs: 10_000, message: "series.count did not reach 8" });
  assert.equal(afterEight.length, 1);
  await recorder.flush();
  assert.equal((await eventsIn(ns.name)).length, 2, "a different reason is a different Event");

  const described = await kubectlOk(["describe", "configmap", "x", "-n", ns.name]);
  assert.match(
    described,
    /Warning\s+SyncFailed\s+.*\(x8 over .*\)\s+kubeloop\.dev\/integration\s+cannot sync: quota exceeded/,
  );
  assert.match(described, /Normal\s+Synced\s+.*kubeloop\.dev\/integration\s+synced after all/);

  const table = await kubectlOk(["get", "events", "-n", ns.name]);
  assert.match(table, /Warning\s+SyncFailed\s+configmap\/x\s+cannot sync: quota exceeded/);
  const v1Table = await kubectlOk(["get", "events.v1.events.k8s.io", "-n", ns.name]);
  assert.match(v1Table, /SyncFailed/);
});

Deno.test("a controller run by a Manager records events that kubectl describe shows on its object, aggregated", async () => {
  await using ns = await createNamespace("events-controller");
  await using client = await adminClient();
  await using recorder = new EventRecorder(client, {
    reportingController: "kubeloop.dev/integration",
    seriesPatchIntervalMs: 300,
  });
  const factory = new SharedInformerFactory(client);
  const manager = new Manager(factory, { metricsAddress: "0", healthAddress: "0" });
  const configMaps = manager.controller<KubeObject>({
    name: "configmaps",
    for: CONFIG_MAPS,
    namespace: ns.name,
    reconcile: (_request, ctx) => {
      const object = configMaps.primary.store.get(ctx.key);
      if (object) {
        recorder.record(object, { type: "Normal", reason: "Reconciled", note: "configuration applied" });
      }
      return Promise.resolve();
    },
  });
  const stop = new AbortController();
  const running = manager.run({ signal: stop.signal });
  try {
    await kubectlOk(["create", "configmap", "watched", "-n", ns.name]);
    await eventually(async () => {
      const out = await kubectlOk(["describe", "configmap", "watched", "-n", ns.name]);
      return /Normal\s+Reconciled\s+.*configuration applied/.test(out) ? true : undefined;
    }, { message: "the controller's event is not in kubectl describe" });

    // Each change triggers a reconcile, which records the same event again.
    for (const value of ["1", "2", "3"]) {
      await kubectlOk(["annotate", "--overwrite", "configmap", "watched", "-n", ns.name, `round=${value}`]);
      await eventually(async () => {
        const events = (await eventsWithReason(ns.name, "Reconciled"))
          .filter((e) => e.regarding?.name === "watched");
        return (events[0]?.series?.count ?? 1) >= Number(value) + 1 ? true : undefined;
      }, { timeoutMs: 10_000, message: `the repeat of round ${value} was not aggregated` });
    }
    const events = (await eventsWithReason(ns.name, "Reconciled")).filter((e) =>
      e.regarding?.name === "watched"
    );
    assert.equal(events.length, 1, "repeats were aggregated into one Event");
    const count = events[0]?.series?.count ?? 0;
    const out = await kubectlOk(["describe", "configmap", "watched", "-n", ns.name]);
    assert.match(out, new RegExp(`Normal\\s+Reconciled\\s+.*\\(x${count} over .*\\)`));
  } finally {
    stop.abort();
    await running;
  }
});
