/**
 * With tracing on, a reconcile is a root span linked to the span of the watch event that queued it, with
 * the trigger as attributes, and the API requests it makes are its children.
 */
import assert from "node:assert/strict";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import type { RawWatchOptions } from "../../lib/client/types.ts";
import type { ClusterConfig } from "../../lib/config/types.ts";
import { Controller } from "../../lib/controller/mod.ts";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import type { ResourceRef } from "../../lib/resources/object.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { installRecordingTracer } from "../_util/recording_tracer.ts";
import { json, ScriptedTransport } from "../_util/scripted_transport.ts";
import { cm, configMaps, line, page, PushBody, ScriptedListWatcher } from "../watch/_helpers.ts";

const spans = await installRecordingTracer();

class PushScript extends ScriptedListWatcher {
  constructor(lists: ReturnType<typeof page>[], readonly pushBodies: PushBody[]) {
    super(lists, []);
  }
  override watch(_ref: ResourceRef, _opts: RawWatchOptions): Promise<ReadableStream<Uint8Array>> {
    return Promise.resolve((this.pushBodies.shift() ?? new PushBody()).stream);
  }
}

const config: ClusterConfig = {
  server: new URL("https://api.example:6443"),
  tls: {},
  namespace: "ns",
  source: "test",
  inCluster: false,
  credentials: { get: () => Promise.resolve({ token: "t" }), invalidate: () => {} },
};

Deno.test("a reconcile span links to the watch event that queued it; its requests are its children", async () => {
  const clock = new FakeClock();
  const body = new PushBody();
  const factory = new SharedInformerFactory(new PushScript([page([], "10")], [body]), {
    clock,
    initialList: "paged",
  });
  const transport = new ScriptedTransport(() => json(200, cm("copy", "1")));
  const client = new KubeClient(config, { transport, clock });
  let ran = 0;
  const c = new Controller(factory, {
    name: "copier",
    for: configMaps,
    clock,
    reconcile: async ({ name }) => {
      await client.get(CONFIG_MAPS, name);
      await client.get(CONFIG_MAPS, `${name}-copy`);
      ran++;
    },
  });
  const ac = new AbortController();
  factory.start(ac.signal);
  const done = c.run({ signal: ac.signal });
  await factory.waitForSync(ac.signal);
  await clock.advance(0);
  await body.push(line("ADDED", cm("a", "42")));
  for (let i = 0; i < 20 && ran < 1; i++) await clock.advance(0);
  assert.equal(ran, 1);

  const event = spans.find((s) => s.name === "informer.event v1/configmaps")!;
  const reconcile = spans.find((s) => s.name === "reconcile copier")!;
  const requests = spans.filter((s) => s.name === "get v1/configmaps");
  assert.ok(event && reconcile, spans.map((s) => s.name).join(", "));
  assert.equal(reconcile.parentSpanId, undefined, "a reconcile starts its own trace");
  assert.notEqual(reconcile.traceId, event.traceId);
  assert.deepEqual(reconcile.links.map((l) => [l.context.traceId, l.context.spanId]), [[
    event.traceId,
    event.spanId,
  ]]);
  assert.equal(requests.length, 2);
  for (const r of requests) {
    assert.equal(r.parentSpanId, reconcile.spanId);
    assert.equal(r.traceId, reconcile.traceId);
  }
  assert.deepEqual(
    Object.fromEntries(
      Object.entries(reconcile.attributes).filter(([k]) => k !== "kubeloop.reconcile.queue_wait_seconds"),
    ),
    {
      "kubeloop.controller": "copier",
      "kubeloop.reconcile.key": "ns/a",
      "kubeloop.reconcile.retries": 0,
      "kubeloop.reconcile.result": "success",
      "kubeloop.trigger.type": "add",
      "kubeloop.trigger.count": 1,
      "kubeloop.trigger.resource": "v1/configmaps",
      "kubeloop.trigger.key": "ns/a",
      "kubeloop.trigger.resource_version": "42",
    },
  );
  assert.equal(typeof reconcile.attributes["kubeloop.reconcile.queue_wait_seconds"], "number");
  assert.ok(reconcile.ended);
  ac.abort();
  await done;
  await factory.stopped();
});

Deno.test("a failing reconcile's span says error and carries the error type", async () => {
  spans.length = 0;
  const clock = new FakeClock();
  const factory = new SharedInformerFactory(new PushScript([page([cm("bad", "5")], "10")], []), {
    clock,
    initialList: "paged",
  });
  let ran = 0;
  const c = new Controller(factory, {
    name: "failing",
    for: configMaps,
    clock,
    reconcile: () => {
      ran++;
      return Promise.reject(new RangeError("names bad"));
    },
  });
  const ac = new AbortController();
  factory.start(ac.signal);
  const done = c.run({ signal: ac.signal });
  for (let i = 0; i < 20 && ran < 1; i++) await clock.advance(0);
  const reconcile = spans.find((s) => s.name === "reconcile failing")!;
  assert.equal(reconcile.attributes["kubeloop.reconcile.result"], "error");
  assert.equal(reconcile.attributes["kubeloop.trigger.type"], "initial list");
  assert.equal(reconcile.attributes["error.type"], "RangeError");
  const list = spans.find((s) => s.name === "informer.list v1/configmaps")!;
  assert.deepEqual(reconcile.links.map((l) => l.context.spanId), [list.spanId], "linked to the list");
  ac.abort();
  await done;
  await factory.stopped();
});
