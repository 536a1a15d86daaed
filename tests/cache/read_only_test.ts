/**
 * Cached objects are shared by every reader. The store and informer hand them out deeply read-only, so
 * writing to one does not compile (the `@ts-expect-error` lines below are checked by `deno check`: each
 * must be an error, or the check fails); `freezeObjects` makes a write through a cast throw at run time.
 */
import assert from "node:assert/strict";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { mutableCopy } from "../../lib/resources/mod.ts";
import { CONFIG_MAPS, type ConfigMap } from "../../lib/resources/mod.ts";
import { FakeApi } from "../../lib/testing/mod.ts";

async function synced(freezeObjects: boolean) {
  const api = new FakeApi();
  api.seed(CONFIG_MAPS, {
    metadata: { name: "a", namespace: "ns", labels: { app: "web" }, finalizers: ["x/y"] },
    data: { key: "value" },
  });
  const factory = new SharedInformerFactory(api, { freezeObjects });
  const informer = factory.informer(CONFIG_MAPS);
  const stop = new AbortController();
  factory.start(stop.signal);
  await informer.ready(stop.signal);
  return {
    informer,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await factory.stopped();
    },
  };
}

Deno.test("writing to a cached object is a compile error, and with freezeObjects a TypeError at run time", async () => {
  await using s = await synced(true);
  const cm = s.informer.store.get("ns/a")!;
  assert.throws(() => {
    // @ts-expect-error a cached object's metadata is read-only
    cm.metadata.labels = {};
  }, TypeError);
  assert.throws(() => {
    // @ts-expect-error nested maps are read-only too
    cm.data!["key"] = "changed";
  }, TypeError);
  assert.throws(() => {
    // @ts-expect-error and arrays have no push
    cm.metadata.finalizers!.push("z");
  }, TypeError);
  s.informer.subscribe({
    onUpdate: (_old, next) => {
      // @ts-expect-error handlers get the same read-only objects
      next.metadata.name = "renamed";
    },
  });
  // The way to a changed version: a copy, which is mutable again.
  const copy: ConfigMap = mutableCopy(cm);
  copy.data = { key: "new" };
  assert.equal(cm.data?.["key"], "value");
  // Through a cast the compiler cannot help; the frozen object still refuses.
  assert.throws(() => void ((cm as ConfigMap).data = {}), TypeError);
  assert.deepEqual(s.informer.store.get("ns/a")?.data, { key: "value" });
});

Deno.test("without freezeObjects a write through a cast goes unnoticed, which is why tests should freeze", async () => {
  await using s = await synced(false);
  const cm = s.informer.store.get("ns/a")! as ConfigMap;
  cm.data = { corrupted: "yes" };
  assert.deepEqual(s.informer.store.get("ns/a")?.data, { corrupted: "yes" });
});
