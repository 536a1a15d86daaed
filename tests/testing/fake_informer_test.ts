/** FakeInformer and MemoryLogger: the hand-driven test doubles a controller's unit tests lean on. */
import assert from "node:assert/strict";
import { CONFIG_MAPS, type ConfigMap, type KubeObject } from "../../lib/resources/mod.ts";
import { FakeInformer, FakeInformers, MemoryLogger } from "../../lib/testing/mod.ts";
import type { IndexFunc } from "../../lib/cache/mod.ts";

const cm = (name: string, data: Record<string, string> = {}): ConfigMap => ({
  metadata: { name, namespace: "ns" },
  data,
});

Deno.test("ready() waits for sync(), and rejects with the signal's reason when aborted before or while waiting", async () => {
  const informer = new FakeInformer<ConfigMap>();
  let ready = false;
  const waiting = informer.ready().then(() => void (ready = true));
  await Promise.resolve();
  assert.equal(ready, false);
  assert.equal(informer.hasSynced(), false);
  const stop = new AbortController();
  const aborted = informer.ready(stop.signal);
  stop.abort(new Error("shutting down"));
  await assert.rejects(aborted, /shutting down/);
  await assert.rejects(informer.ready(stop.signal), /shutting down/, "an aborted signal rejects at once");
  informer.sync();
  await waiting;
  assert.equal(ready, true);
  assert.equal(informer.hasSynced(), true);
  await informer.ready(); // already synced: at once
});

Deno.test("add, update and remove change the store and call the subscribers; updating an uncached object throws", () => {
  const informer = new FakeInformer<ConfigMap>();
  const seen: string[] = [];
  const unsubscribe = informer.subscribe({
    onAdd: (o) => void seen.push(`add ${o.metadata.name}`),
    onUpdate: (old, o) => void seen.push(`update ${old.data?.k}->${o.data?.k}`),
    onDelete: (o, d) => void seen.push(`delete ${o.metadata.name} ${d.finalStateUnknown}`),
    onRecovered: () => void seen.push("recovered"),
  });
  assert.equal(informer.subscribers, 1);
  informer.add(cm("a", { k: "1" }));
  informer.update(cm("a", { k: "2" }));
  informer.recover();
  informer.remove(cm("a"));
  assert.throws(() => informer.update(cm("b")), /FakeInformer: update of "ns\/b", which is not cached/);
  assert.deepEqual(seen, ["add a", "update 1->2", "recovered", "delete a false"]);
  assert.deepEqual(informer.store.keys(), []);
  unsubscribe();
  assert.equal(informer.subscribers, 0);
});

Deno.test("cached objects are frozen copies unless freeze is off", () => {
  const frozen = new FakeInformer<ConfigMap>();
  const original = cm("a", { k: "1" });
  frozen.add(original);
  const cached = frozen.store.get("ns/a")!;
  assert.notEqual(cached, original);
  assert.throws(() => {
    (cached.data as Record<string, string>)["k"] = "changed";
  }, TypeError);
  const loose = new FakeInformers({ freeze: false }).get(CONFIG_MAPS);
  loose.add(original);
  assert.equal(loose.store.get("ns/a"), original);
});

Deno.test("FakeInformers hands out one informer per resource and syncs them all", async () => {
  const informers = new FakeInformers();
  assert.equal(informers.informer(CONFIG_MAPS), informers.get(CONFIG_MAPS));
  const waiting = informers.get(CONFIG_MAPS).ready();
  informers.syncAll();
  await waiting;
});

Deno.test("MemoryLogger keeps lines with their child fields, finds them and lists messages by level", () => {
  const logger = new MemoryLogger();
  const child = logger.child({ controller: "mirror" }).child({ key: "ns/a" });
  logger.debug("starting");
  child.info("reconciled", { ms: 3 });
  child.warn("slow");
  logger.error("failed", { err: "boom" });
  assert.deepEqual(logger.lines[1], {
    level: "info",
    msg: "reconciled",
    fields: { controller: "mirror", key: "ns/a", ms: 3 },
  });
  assert.deepEqual(logger.find(/^recon/)?.fields["key"], "ns/a");
  assert.equal(logger.find("slow")?.level, "warn");
  assert.equal(logger.find("missing"), undefined);
  assert.deepEqual(logger.messages(), ["starting", "reconciled", "slow", "failed"]);
  assert.deepEqual(logger.messages("error"), ["failed"]);
  assert.deepEqual(child.messages("debug"), ["starting"], "children share the parent's lines");
});

Deno.test("FakeInformers adds indexers asked for after the informer was handed out", () => {
  const informers = new FakeInformers();
  const first = informers.get(CONFIG_MAPS);
  first.add({ metadata: { name: "a", namespace: "ns", labels: { team: "red" } } });
  const byTeam: IndexFunc<KubeObject> = (o) => [o.metadata.labels?.team ?? ""];
  const again = informers.informer(CONFIG_MAPS, { indexers: { byTeam } });
  assert.deepEqual(again.store.byIndex("byTeam", "red").map((o) => o.metadata.name), ["a"]);
});
