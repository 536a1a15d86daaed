import assert from "node:assert/strict";
import type { KubeObject } from "../../lib/resources/object.ts";
import { IndexedStore } from "../../lib/cache/store.ts";
import { type StoreChange, StoreWriter } from "../../lib/cache/store_writer.ts";
import { deepFreeze } from "./_helpers.ts";

function cm(name: string, rv: string): KubeObject {
  return deepFreeze({ metadata: { name, namespace: "ns", resourceVersion: rv } });
}
const brief = (c: StoreChange<KubeObject>) =>
  c.type === "delete"
    ? `delete:${c.object.metadata.name}${c.finalStateUnknown ? "?" : ""}`
    : `${c.type}:${c.object.metadata.name}@${c.object.metadata.resourceVersion}`;

Deno.test("readers see the old content until initDone, then the whole new list at once", () => {
  const store = new IndexedStore<KubeObject>();
  const w = new StoreWriter(store);
  w.apply({ type: "init" });
  w.apply({ type: "initApply", object: cm("a", "1") });
  w.apply({ type: "initDone", resourceVersion: "1" });
  w.apply({ type: "init" });
  w.apply({ type: "initApply", object: cm("a", "2") });
  assert.equal(store.get("ns/a")?.metadata.resourceVersion, "1", "still the old content mid-list");
  w.apply({ type: "initApply", object: cm("b", "3") });
  assert.equal(store.size, 1);
  w.apply({ type: "initDone", resourceVersion: "3" });
  assert.equal(store.get("ns/a")?.metadata.resourceVersion, "2");
  assert.equal(store.size, 2);
});

Deno.test("the first sync reports adds and resolves ready", async () => {
  const w = new StoreWriter(new IndexedStore<KubeObject>());
  assert.equal(w.hasSynced(), false);
  assert.deepEqual(w.apply({ type: "init" }), []);
  assert.deepEqual(w.apply({ type: "initApply", object: cm("a", "1") }), []);
  const changes = w.apply({ type: "initDone", resourceVersion: "1" });
  assert.deepEqual(changes.map(brief), ["add:a@1"]);
  assert.equal(w.hasSynced(), true);
  await w.ready();
});

Deno.test("a relist reports updates for changed RVs, nothing for unchanged, and finalStateUnknown deletes for vanished objects", () => {
  const store = new IndexedStore<KubeObject>();
  const w = new StoreWriter(store);
  for (const e of [cm("same", "1"), cm("changed", "2"), cm("gone", "3")]) {
    w.apply({ type: "apply", object: e });
  }
  const kept = store.get("ns/same");
  w.apply({ type: "init" });
  w.apply({ type: "initApply", object: cm("same", "1") });
  w.apply({ type: "initApply", object: cm("changed", "5") });
  w.apply({ type: "initApply", object: cm("new", "6") });
  const changes = w.apply({ type: "initDone", resourceVersion: "6" });
  assert.deepEqual(changes.map(brief).sort(), ["add:new@6", "delete:gone?", "update:changed@5"]);
  const upd = changes.find((c) => c.type === "update");
  assert.ok(upd?.type === "update" && upd.oldObject.metadata.resourceVersion === "2");
  assert.equal(store.get("ns/same"), kept, "an unchanged object keeps its identity");
  assert.equal(store.get("ns/gone"), undefined);
});

Deno.test("watch events apply at once; a replayed RV is ignored; a delete of an unknown object is nothing", () => {
  const store = new IndexedStore<KubeObject>();
  const w = new StoreWriter(store);
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "1") }).map(brief), ["add:a@1"]);
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "1") }), []);
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "2") }).map(brief), ["update:a@2"]);
  assert.deepEqual(w.apply({ type: "delete", object: cm("a", "3") }).map(brief), ["delete:a"]);
  assert.deepEqual(w.apply({ type: "delete", object: cm("a", "3") }), []);
  assert.deepEqual(w.apply({ type: "error", error: new Error("x") }), []);
});

Deno.test("ready(signal) rejects with the signal's reason when aborted before the first sync", async () => {
  const w = new StoreWriter(new IndexedStore<KubeObject>());
  const ac = new AbortController();
  const p = w.ready(ac.signal);
  ac.abort(new Error("stop"));
  await assert.rejects(p, /stop/);
  await assert.rejects(w.ready(ac.signal), /stop/);
});
