/** FakeApi's watches as informers meet them: initial state, scope, metadata-only, and server-side ends. */
import assert from "node:assert/strict";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { CONFIG_MAPS, type ConfigMap, DEPLOYMENTS } from "../../lib/resources/mod.ts";
import { FakeApi } from "../../lib/testing/mod.ts";
import { type RawWatchEvent, WatchDecoderStream } from "../../lib/watch/mod.ts";

function cm(name: string, data: Record<string, string> = {}): ConfigMap {
  return { metadata: { name, namespace: "ns" }, data };
}

/** The next `count` events of `stream` (fewer if it ends), then cancels it. */
async function readEvents(stream: ReadableStream<Uint8Array>, count: number): Promise<RawWatchEvent[]> {
  const reader = stream.pipeThrough(new WatchDecoderStream()).getReader();
  const out: RawWatchEvent[] = [];
  while (out.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    out.push(value);
  }
  await reader.cancel();
  return out;
}

/** The object of an event, as a ConfigMap (or its metadata). */
const objectOf = (
  e: RawWatchEvent | undefined,
) => (e && e.type !== "ERROR" ? e.object as ConfigMap : undefined);
const described = (e: RawWatchEvent) => `${e.type} ${objectOf(e)?.kind} ${objectOf(e)?.metadata.name}`;

Deno.test("a watch without a resourceVersion, or from 0, starts with what exists, then sees its resource only", async () => {
  for (const resourceVersion of [undefined, "", "0"]) {
    const api = new FakeApi();
    api.seed(CONFIG_MAPS, cm("a"), cm("b"));
    const stream = await api.watch(CONFIG_MAPS, resourceVersion === undefined ? {} : { resourceVersion });
    await api.create(DEPLOYMENTS, {
      metadata: { name: "web", namespace: "ns" },
      spec: { selector: {}, template: {} },
    });
    await api.patch(CONFIG_MAPS, "a", { data: { k: "v" } }, { type: "merge", namespace: "ns" });
    await api.delete(CONFIG_MAPS, "b", { namespace: "ns" });
    assert.deepEqual((await readEvents(stream, 4)).map(described), [
      "ADDED ConfigMap a",
      "ADDED ConfigMap b",
      "MODIFIED ConfigMap a",
      "DELETED ConfigMap b",
    ], `resourceVersion ${JSON.stringify(resourceVersion)}`);
  }
});

Deno.test("a metadata-only watch sends PartialObjectMetadata, without the data", async () => {
  const api = new FakeApi();
  api.seed(CONFIG_MAPS, cm("a", { secret: "not for metadata watchers" }));
  const stream = await api.watch(CONFIG_MAPS, { metadataOnly: true });
  await api.patch(CONFIG_MAPS, "a", { metadata: { labels: { x: "y" } } }, { type: "merge", namespace: "ns" });
  const events = await readEvents(stream, 2);
  assert.deepEqual(events.map(described), [
    "ADDED PartialObjectMetadata a",
    "MODIFIED PartialObjectMetadata a",
  ]);
  for (const e of events) {
    assert.equal(objectOf(e)?.data, undefined);
    assert.equal(objectOf(e)?.apiVersion, "meta.k8s.io/v1");
  }
  assert.deepEqual(objectOf(events[1])?.metadata.labels, { x: "y" });
});

Deno.test("closeWatches ends every watch cleanly, and a real informer watches again and keeps following", async () => {
  const api = new FakeApi();
  api.seed(CONFIG_MAPS, cm("a"));
  const plain = (await api.watch(CONFIG_MAPS, {})).getReader();
  const factory = new SharedInformerFactory(api);
  const informer = factory.informer(CONFIG_MAPS, { namespace: "ns" });
  const stop = new AbortController();
  factory.start(stop.signal);
  try {
    await informer.ready(stop.signal);
    assert.equal(api.openWatches, 2);
    const watchesBefore = api.requests.filter((r) => r.verb === "watch").length;
    api.closeWatches();
    assert.equal(api.openWatches, 0);
    await plain.read(); // the initial ADDED event
    assert.deepEqual(
      await plain.read(),
      { done: true, value: undefined },
      "the stream ends, without an error",
    );
    for (let waited = 0; api.openWatches === 0; waited += 5) {
      assert.ok(waited < 10_000, "the informer watches again within 10 s");
      await new Promise((r) => setTimeout(r, 5));
    }
    const again = api.requests.filter((r) => r.verb === "watch").slice(watchesBefore);
    assert.equal(again.length, 1, "one new watch");
    const changed = new Promise<string>((resolve) =>
      informer.subscribe({ onUpdate: (_o, n) => resolve(n.data?.k ?? "") })
    );
    await api.patch(CONFIG_MAPS, "a", { data: { k: "after the close" } }, { type: "merge", namespace: "ns" });
    assert.equal(await changed, "after the close");
  } finally {
    stop.abort();
    await factory.stopped();
  }
});
