// The store writer orders by resourceVersion: the cache never goes back in time, whether an old watch
// event arrives after a write's answer was cached, or a list older than that answer completes.
import assert from "node:assert/strict";
import type { KubeObject } from "../../lib/resources/object.ts";
import { compareResourceVersions, IndexedStore, type StoreChange, StoreWriter } from "../../lib/cache/mod.ts";
import { deepFreeze } from "./_helpers.ts";

function cm(name: string, rv: string, uid = `uid-${name}`): KubeObject {
  return deepFreeze({ metadata: { name, namespace: "ns", resourceVersion: rv, uid } });
}
const brief = (c: StoreChange<KubeObject> | undefined) =>
  c === undefined
    ? "none"
    : c.type === "delete"
    ? `delete:${c.object.metadata.name}${c.finalStateUnknown ? "?" : ""}`
    : `${c.type}:${c.object.metadata.name}@${c.object.metadata.resourceVersion}`;

function synced(...objects: KubeObject[]): { store: IndexedStore<KubeObject>; w: StoreWriter<KubeObject> } {
  const store = new IndexedStore<KubeObject>();
  const w = new StoreWriter(store);
  w.apply({ type: "init" });
  for (const object of objects) w.apply({ type: "initApply", object });
  w.apply({ type: "initDone", resourceVersion: "10" });
  return { store, w };
}

Deno.test("resourceVersions compare as decimal integers of any length; anything else only for equality", () => {
  assert.equal(compareResourceVersions("9", "10"), -1);
  assert.equal(compareResourceVersions("10", "9"), 1);
  assert.equal(compareResourceVersions("123", "123"), 0);
  assert.equal(compareResourceVersions("18446744073709551616", "18446744073709551615"), 1);
  for (const bad of ["0", "007", "", "1a", "-1", " 1", "1.0", undefined]) {
    assert.equal(compareResourceVersions(bad, "5"), undefined, String(bad));
    assert.equal(compareResourceVersions("5", bad), undefined, String(bad));
  }
});

Deno.test("a watch event older than the cached object is dropped; the same version changes nothing", () => {
  const { store, w } = synced(cm("a", "5"));
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "4") }), []);
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "5") }), []);
  assert.equal(store.get("ns/a")?.metadata.resourceVersion, "5");
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "6") }).map(brief), ["update:a@6"]);
});

Deno.test("a write's answer is cached when newer; the watch echo and older events then change nothing", () => {
  const { store, w } = synced(cm("a", "5"));
  assert.equal(brief(w.write(cm("a", "7"))), "update:a@7");
  assert.equal(brief(w.write(cm("a", "7"))), "none", "the same answer twice");
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "6") }), [], "someone's change before ours");
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "7") }), [], "our echo");
  assert.equal(store.get("ns/a")?.metadata.resourceVersion, "7");
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "8") }).map(brief), ["update:a@8"]);
  assert.equal(brief(w.write(cm("a", "7"))), "none", "an answer older than the watch");
  assert.equal(brief(w.write(cm("b", "9"))), "add:b@9", "a create");
  assert.equal(brief(w.write(cm("c", "abc"))), "none", "a version that cannot be ordered");
});

Deno.test("a delete older than the cached object is dropped: the key was created again since", () => {
  const { store, w } = synced(cm("a", "5", "old"));
  assert.deepEqual(w.apply({ type: "delete", object: cm("a", "6", "old") }).map(brief), ["delete:a"]);
  assert.equal(brief(w.write(cm("a", "8", "new"))), "add:a@8");
  assert.deepEqual(w.apply({ type: "delete", object: cm("a", "7", "new-but-older") }), []);
  assert.equal(store.get("ns/a")?.metadata.uid, "new");
});

Deno.test("a write's answer older than a removal seen while it was in flight is not cached", () => {
  const { store, w } = synced(cm("a", "5"));
  w.track("ns/a");
  assert.deepEqual(w.apply({ type: "delete", object: cm("a", "9") }).map(brief), ["delete:a"]);
  assert.equal(brief(w.write(cm("a", "8"))), "none", "deleted after our write: no resurrection");
  assert.equal(store.get("ns/a"), undefined);
  assert.equal(brief(w.write(cm("a", "11", "again"))), "add:a@11", "created again after the removal");
  w.untrack("ns/a");
});

Deno.test("an object a write deleted stays deleted: later events about it are dropped until its DELETED", () => {
  const { store, w } = synced(cm("a", "5"));
  assert.equal(brief(w.writeDeleted("ns/a", "uid-a")), "delete:a");
  assert.equal(w.writeDeleted("ns/a", "uid-a"), undefined);
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "6") }), [], "a change made before the delete");
  assert.deepEqual(
    w.apply({ type: "delete", object: cm("a", "7") }),
    [],
    "the DELETED event: nothing cached",
  );
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "8", "recreated") }).map(brief), ["add:a@8"]);
  assert.equal(store.get("ns/a")?.metadata.uid, "recreated");
  assert.equal(w.writeDeleted("ns/a", "uid-a"), undefined, "another object at the key is left alone");
});

Deno.test("a list keeps cached objects newer than it, and drops one a write deleted until its DELETED", () => {
  const { store, w } = synced(cm("a", "5"), cm("b", "6"), cm("gone", "7"));
  w.write(cm("a", "21"));
  w.write(cm("new", "22"));
  w.writeDeleted("ns/gone", "uid-gone");
  w.apply({ type: "init" });
  w.apply({ type: "initApply", object: cm("a", "5") });
  w.apply({ type: "initApply", object: cm("gone", "7") });
  const changes = w.apply({ type: "initDone", resourceVersion: "20" });
  assert.deepEqual(changes.map(brief), ["delete:b?"]);
  assert.deepEqual(store.keys().sort(), ["ns/a", "ns/new"]);
  assert.equal(store.get("ns/a")?.metadata.resourceVersion, "21");
  assert.deepEqual(w.apply({ type: "apply", object: cm("gone", "7") }), [], "still known to be deleted");
  w.apply({ type: "init" });
  const later = w.apply({ type: "initDone", resourceVersion: "30" });
  assert.deepEqual(later.map(brief).sort(), ["delete:a?", "delete:new?"], "a newer list is the truth");
});

Deno.test("versions that are not integers are compared for equality only, as before", () => {
  const { store, w } = synced(cm("a", "x5"));
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "x4") }).map(brief), ["update:a@x4"]);
  assert.deepEqual(w.apply({ type: "apply", object: cm("a", "x4") }), []);
  assert.equal(w.write(cm("a", "x9")), undefined, "no write-through without an order");
  assert.equal(store.get("ns/a")?.metadata.resourceVersion, "x4");
});
