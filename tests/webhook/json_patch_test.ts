import assert from "node:assert/strict";
import { diffJson, jsonEqual, type JsonValue } from "../../lib/webhook/json_patch.ts";
import { seededRandom } from "../_util/seeded_random.ts";
import { applyPatch, mutateJson, randomJson } from "./_json.ts";

Deno.test("equal documents give no operations, whatever the member order", () => {
  assert.deepEqual(diffJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }), []);
});

Deno.test("members: removed, added, replaced, and nested objects recursed into", () => {
  const from = { spec: { replicas: 2, name: "x" }, gone: true };
  const to = { spec: { replicas: 3, name: "x", paused: false }, added: [1] };
  assert.deepEqual(diffJson(from, to), [
    { op: "remove", path: "/gone" },
    { op: "replace", path: "/spec/replicas", value: 3 },
    { op: "add", path: "/spec/paused", value: false },
    { op: "add", path: "/added", value: [1] },
  ]);
});

Deno.test("member names are escaped as RFC 6901 says", () => {
  const to = { metadata: { labels: { "app.kubernetes.io/name": "x", "a~b": "y" } } };
  assert.deepEqual(diffJson({ metadata: { labels: {} } }, to), [
    { op: "add", path: "/metadata/labels/app.kubernetes.io~1name", value: "x" },
    { op: "add", path: "/metadata/labels/a~0b", value: "y" },
  ]);
});

Deno.test("arrays: elements appended at the end, removed from the end backwards, or the array replaced", () => {
  const big = (n: number) => ({ name: `container-${n}`, image: "registry.example/app:1.2.3" });
  assert.deepEqual(diffJson({ l: [big(1), big(2)] }, { l: [big(1), big(2), big(3), big(4)] }), [
    { op: "add", path: "/l/2", value: big(3) },
    { op: "add", path: "/l/3", value: big(4) },
  ]);
  assert.deepEqual(diffJson({ l: [big(1), big(2), big(3), big(4)] }, { l: [big(1), big(2)] }), [
    { op: "remove", path: "/l/3" },
    { op: "remove", path: "/l/2" },
  ]);
  // An element inserted at the front changes every index: one replace is shorter and as correct.
  assert.deepEqual(diffJson({ l: [1, 2, 3] }, { l: [0, 1, 2, 3] }), [{
    op: "replace",
    path: "/l",
    value: [0, 1, 2, 3],
  }]);
});

Deno.test("a value of another type is replaced, null included", () => {
  assert.deepEqual(diffJson({ a: { b: 1 } }, { a: [1] }), [{ op: "replace", path: "/a", value: [1] }]);
  assert.deepEqual(diffJson({ a: null }, { a: 0 }), [{ op: "replace", path: "/a", value: 0 }]);
  assert.deepEqual(diffJson({ a: 1 }, [1]), [{ op: "replace", path: "", value: [1] }]);
});

Deno.test("property: the patch applied to the source gives the target, on 3,000 random document pairs", () => {
  const random = seededRandom(20261203);
  for (let i = 0; i < 3000; i++) {
    const from = randomJson(random, 4);
    const to = mutateJson(random, from, 4);
    const ops = diffJson(from, to);
    const patched = applyPatch(from, ops);
    assert.ok(jsonEqual(patched, to), `case ${i}: ${JSON.stringify({ from, to, ops })}`);
    if (jsonEqual(from, to)) assert.deepEqual(ops, [], `case ${i}: equal documents, yet operations`);
  }
});

Deno.test("property: the patch survives JSON (what the API server receives) unchanged", () => {
  const random = seededRandom(7);
  for (let i = 0; i < 500; i++) {
    const from = randomJson(random, 3);
    const to = mutateJson(random, from, 3);
    const wire = JSON.parse(JSON.stringify(diffJson(from, to)));
    assert.ok(jsonEqual(applyPatch(from, wire), to), `case ${i}`);
  }
});

Deno.test("jsonEqual: member order is ignored, array order and types are not", () => {
  const a: JsonValue = { x: [1, "1"], y: { z: null } };
  assert.ok(jsonEqual(a, { y: { z: null }, x: [1, "1"] }));
  assert.ok(!jsonEqual(a, { x: ["1", 1], y: { z: null } }));
  assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: undefined as unknown as JsonValue }));
  assert.ok(!jsonEqual(0, "0"));
});
