/**
 * kubeloop_informer_cache_objects and kubeloop_informer_cache_bytes follow an informer's cache exactly:
 * read after every add, update, delete and relist, they equal the number of cached objects and the sum of
 * their JSON lengths.
 */
import assert from "node:assert/strict";
import { Informer } from "../../lib/cache/informer.ts";
import { informerMetricsFor } from "../../lib/cache/informer_metrics_registry.ts";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";
import type { KubeObject, ResourceRef } from "../../lib/resources/object.ts";
import type { RawWatchOptions } from "../../lib/client/types.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { checkMetrics } from "../_util/metrics_check.ts";
import { cm, configMaps, errorLine, line, page, PushBody, ScriptedListWatcher } from "../watch/_helpers.ts";

/** Answers lists from the script and watches with the given bodies, which the test writes to. */
class PushScript extends ScriptedListWatcher {
  constructor(lists: ReturnType<typeof page>[], readonly pushBodies: PushBody[]) {
    super(lists, []);
  }
  override watch(_ref: ResourceRef, _opts: RawWatchOptions): Promise<ReadableStream<Uint8Array>> {
    return Promise.resolve((this.pushBodies.shift() ?? new PushBody()).stream);
  }
}

function gauge(text: string, name: string, resource = "v1/configmaps"): number | undefined {
  const prefix = `${name}{resource="${resource}"} `;
  const found = text.split("\n").find((l) => l.startsWith(prefix));
  return found === undefined ? undefined : Number(found.slice(prefix.length));
}

/** What the gauges should read for these cached objects. */
function expected(objects: KubeObject[]): { objects: number; bytes: number } {
  return { objects: objects.length, bytes: objects.reduce((n, o) => n + JSON.stringify(o).length, 0) };
}

function read(registry: MetricsRegistry): { objects: number | undefined; bytes: number | undefined } {
  const text = registry.render();
  return {
    objects: gauge(text, "kubeloop_informer_cache_objects"),
    bytes: gauge(text, "kubeloop_informer_cache_bytes"),
  };
}

Deno.test("the cache gauges track adds, updates, deletes and relists exactly", async () => {
  const clock = new FakeClock();
  const registry = new MetricsRegistry();
  const a1 = cm("a", "1");
  const b2 = cm("b", "2");
  const c11 = cm("c", "11", { data: { v: "a longer value than before", w: "and one more field" } });
  const a12 = cm("a", "12", { data: { v: "changed" } });
  const b40 = cm("b", "40", { data: { v: "after the relist" } });
  const d41 = cm("d", "41");
  const first = new PushBody();
  const second = new PushBody();
  const lw = new PushScript([page([a1, b2], "10"), page([b40, d41], "41")], [first, second]);
  const inf = new Informer(lw, configMaps, {
    clock,
    initialList: "paged",
    metrics: informerMetricsFor(registry),
  });
  const ac = new AbortController();
  const done = inf.run({ signal: ac.signal });
  await inf.ready();
  assert.deepEqual(read(registry), expected([a1, b2]), "after the initial list");

  await first.push(line("ADDED", c11));
  assert.deepEqual(read(registry), expected([a1, b2, c11]), "after an add");
  await first.push(line("MODIFIED", a12));
  assert.deepEqual(read(registry), expected([a12, b2, c11]), "after an update");
  await first.push(line("DELETED", b2));
  assert.deepEqual(read(registry), expected([a12, c11]), "after a delete");

  // 410 Gone: the informer lists again; a12 and c11 vanished meanwhile, b came back changed, d is new.
  await first.push(errorLine(410, "Expired"));
  for (let i = 0; i < 100 && inf.store.get("ns/d") === undefined; i++) await clock.advance(1000);
  assert.ok(inf.store.get("ns/d"), "relisted");
  assert.deepEqual(read(registry), expected([b40, d41]), "after a relist");
  assert.equal(read(registry).bytes, inf.store.list().reduce((n, o) => n + JSON.stringify(o).length, 0));

  ac.abort();
  await done;
  assert.deepEqual(
    read(registry),
    { objects: 0, bytes: 0 },
    "a stopped informer holds nothing for the gauges",
  );
});

Deno.test("two informers of one resource (two namespaces) add up; each stops counting when it stops", async () => {
  const registry = new MetricsRegistry();
  const metrics = informerMetricsFor(registry);
  const one = new Informer(new PushScript([page([cm("a", "1"), cm("b", "2")], "10")], []), configMaps, {
    namespace: "one",
    initialList: "paged",
    metrics,
  });
  const two = new Informer(new PushScript([page([cm("c", "3")], "10")], []), configMaps, {
    namespace: "two",
    initialList: "paged",
    metrics,
  });
  const stopOne = new AbortController();
  const stopTwo = new AbortController();
  const runs = [one.run({ signal: stopOne.signal }), two.run({ signal: stopTwo.signal })];
  await Promise.all([one.ready(), two.ready()]);
  assert.deepEqual(read(registry), expected([cm("a", "1"), cm("b", "2"), cm("c", "3")]));
  stopOne.abort();
  await runs[0];
  assert.deepEqual(read(registry), expected([cm("c", "3")]));
  stopTwo.abort();
  await runs[1];
  assert.deepEqual(read(registry), { objects: 0, bytes: 0 });
});

Deno.test("the cache gauges pass the metrics checker (Prometheus' parser and promlint)", async () => {
  const registry = new MetricsRegistry();
  const stop = informerMetricsFor(registry).trackCache!("v1/configmaps", () => ({ objects: 3, bytes: 4096 }));
  const result = await checkMetrics(registry.render());
  stop();
  assert.equal(result.code, 0, result.output);
  assert.match(registry.render(), /^# TYPE kubeloop_informer_cache_bytes gauge$/m);
});

Deno.test("attack: an object nested 10,000 deep is cached and measured; the informer with metrics keeps syncing", async () => {
  let spec: unknown = { leaf: "x" };
  for (let i = 1; i < 10_000; i++) spec = { a: spec };
  const deep = cm("deep", "1", { data: undefined, spec });
  const registry = new MetricsRegistry();
  const body = new PushBody();
  const inf = new Informer(new PushScript([page([deep], "10")], [body]), configMaps, {
    initialList: "paged",
    metrics: informerMetricsFor(registry),
  });
  const ac = new AbortController();
  const done = inf.run({ signal: ac.signal });
  await inf.ready();
  await body.push(line("MODIFIED", { ...deep, metadata: { ...deep.metadata, resourceVersion: "11" } }));
  assert.equal(inf.store.get("ns/deep")?.metadata.resourceVersion, "11");
  assert.deepEqual(read(registry), expected([inf.store.get("ns/deep") as KubeObject]));
  ac.abort();
  await done;
});
