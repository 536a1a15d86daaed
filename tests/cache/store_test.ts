import assert from "node:assert/strict";
import type { KubeObject } from "../../lib/resources/object.ts";
import { IndexedStore, type IndexFunc, NAMESPACE_INDEX } from "../../lib/cache/store.ts";
import { objectKey } from "../../lib/client/paths.ts";
import { deepFreeze } from "./_helpers.ts";

function obj(name: string, namespace: string | undefined, labels: Record<string, string> = {}): KubeObject {
  return deepFreeze({
    metadata: { name, ...(namespace ? { namespace } : {}), labels, resourceVersion: "1" },
  });
}

Deno.test("keys are namespace/name, or name for cluster-scoped objects", () => {
  assert.equal(objectKey(obj("a", "ns")), "ns/a");
  assert.equal(objectKey(obj("node-1", undefined)), "node-1");
});

Deno.test("get, getByName, list, keys and size reflect sets and deletes", () => {
  const s = new IndexedStore<KubeObject>();
  s.set("ns/a", obj("a", "ns"));
  s.set("ns/b", obj("b", "ns"));
  s.set("n1", obj("n1", undefined));
  assert.equal(s.size, 3);
  assert.equal(s.get("ns/a")?.metadata.name, "a");
  assert.equal(s.getByName("b", "ns")?.metadata.name, "b");
  assert.equal(s.getByName("n1")?.metadata.name, "n1");
  assert.deepEqual(s.keys().sort(), ["n1", "ns/a", "ns/b"]);
  assert.equal(s.delete("ns/a")?.metadata.name, "a");
  assert.equal(s.delete("ns/a"), undefined);
  assert.equal(s.list().length, 2);
});

Deno.test("the namespace index is built in and kept current", () => {
  const s = new IndexedStore<KubeObject>();
  s.set("x/a", obj("a", "x"));
  s.set("y/b", obj("b", "y"));
  s.set("x/c", obj("c", "x"));
  assert.deepEqual(s.listByNamespace("x").map((o) => o.metadata.name).sort(), ["a", "c"]);
  assert.deepEqual(s.byIndex(NAMESPACE_INDEX, "y").map((o) => o.metadata.name), ["b"]);
  s.delete("x/a");
  assert.deepEqual(s.listByNamespace("x").map((o) => o.metadata.name), ["c"]);
  assert.deepEqual(s.listByNamespace("nope"), []);
});

Deno.test("custom index functions may return several values and follow updates", () => {
  const s = new IndexedStore<KubeObject>({
    byTeam: (o) =>
      Object.entries(o.metadata.labels ?? {}).filter(([k]) => k.startsWith("team/")).map(([, v]) => v),
  });
  s.set("ns/a", obj("a", "ns", { "team/1": "red", "team/2": "blue" }));
  s.set("ns/b", obj("b", "ns", { "team/1": "red" }));
  assert.deepEqual(s.byIndex("byTeam", "red").map((o) => o.metadata.name).sort(), ["a", "b"]);
  assert.deepEqual(s.byIndex("byTeam", "blue").map((o) => o.metadata.name), ["a"]);
  s.set("ns/a", obj("a", "ns", { "team/1": "green" }));
  assert.deepEqual(s.byIndex("byTeam", "blue"), []);
  assert.deepEqual(s.byIndex("byTeam", "red").map((o) => o.metadata.name), ["b"]);
  assert.deepEqual(s.byIndex("byTeam", "green").map((o) => o.metadata.name), ["a"]);
});

Deno.test("querying an unknown index is a RangeError naming the known ones", () => {
  const s = new IndexedStore<KubeObject>({ mine: () => [] });
  assert.throws(() => s.byIndex("other", "x"), /no such index \(have: mine, namespace\)/);
});

Deno.test("replace swaps the whole content and rebuilds the indexes", () => {
  const s = new IndexedStore<KubeObject>();
  s.set("x/a", obj("a", "x"));
  s.replace(new Map([["y/b", obj("b", "y")]]));
  assert.deepEqual(s.keys(), ["y/b"]);
  assert.deepEqual(s.listByNamespace("x"), []);
  assert.equal(s.listByNamespace("y").length, 1);
});

Deno.test("addIndexers builds a new index over the objects already held and keeps it current", () => {
  const store = new IndexedStore<KubeObject>();
  store.set("ns/a", obj("a", "ns", { team: "red" }));
  store.set("ns/b", obj("b", "ns", { team: "blue" }));
  const byTeam: IndexFunc<KubeObject> = (o) => [o.metadata.labels?.team ?? ""];
  store.addIndexers({ byTeam });
  assert.deepEqual(store.byIndex("byTeam", "red").map((o) => o.metadata.name), ["a"]);
  store.set("ns/c", obj("c", "ns", { team: "red" }));
  store.delete("ns/a");
  assert.deepEqual(store.byIndex("byTeam", "red").map((o) => o.metadata.name), ["c"]);
  store.addIndexers({ byTeam });
  assert.throws(() => store.addIndexers({ byTeam: () => [] }), TypeError);
});

Deno.test("once measured, bytes follows every set, overwrite, delete and replace: the held objects' JSON lengths", () => {
  const s = new IndexedStore<KubeObject>();
  const held = () => s.list().reduce((n, o) => n + JSON.stringify(o).length, 0);
  s.set("ns/z", obj("z", "ns"));
  assert.equal(s.bytes, undefined, "not measured until asked");
  s.measureBytes();
  assert.equal(s.bytes, held(), "what it held already is counted");
  s.delete("ns/z");
  assert.equal(s.bytes, 0);
  s.set("ns/a", obj("a", "ns"));
  s.set("ns/b", obj("b", "ns", { app: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" }));
  assert.equal(s.bytes, held());
  s.set("ns/a", obj("a", "ns", { grown: "yes" }));
  assert.equal(s.bytes, held());
  s.delete("ns/b");
  s.delete("ns/missing");
  assert.equal(s.bytes, held());
  s.replace(new Map([["x/c", obj("c", "x")], ["x/d", obj("d", "x")], ["x/e", obj("e", "x")]]));
  assert.equal(s.bytes, held());
  assert.ok(s.bytes > 0);
  s.replace(new Map());
  assert.equal(s.bytes, 0);
});
