import assert from "node:assert/strict";
import { jsonEqual, mergePatch } from "../../lib/controller/mod.ts";

function nested(depth: number, leaf: unknown): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

Deno.test("attack: mergePatch and jsonEqual handle objects nested 100,000 deep", () => {
  const depth = 100_000;
  const from = nested(depth, 1);
  const to = nested(depth, 2);
  assert.ok(jsonEqual(from, nested(depth, 1)));
  assert.ok(!jsonEqual(from, to));
  assert.equal(mergePatch(from, nested(depth, 1)), undefined);
  assert.equal(
    JSON.stringify(mergePatch(from, to)),
    JSON.stringify(to),
    "the patch is the path to the one change",
  );
  const deepArray = JSON.parse("[".repeat(depth) + "]".repeat(depth));
  assert.ok(jsonEqual(deepArray, JSON.parse("[".repeat(depth) + "]".repeat(depth))));
});

Deno.test("mergePatch: changed, new and removed fields in key order; equal subtrees leave nothing", () => {
  assert.deepEqual(
    mergePatch(
      { a: 1, b: { c: 1, d: 2, e: { f: 1 } }, l: [1], gone: "x" },
      { a: 1, b: { c: 2, e: { f: 1 } }, l: [1, 2], n: "x" },
    ),
    { b: { c: 2, d: null }, l: [1, 2], n: "x", gone: null },
  );
  assert.equal(mergePatch({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), undefined);
  assert.deepEqual(mergePatch({ a: { b: 1 } }, { a: "flat" }), { a: "flat" });
  assert.deepEqual(mergePatch("x", { a: 1 }), { a: 1 });
  assert.deepEqual(mergePatch({ a: 1, u: undefined }, { b: undefined }), { a: null });
});

Deno.test("attack: keys named like Object.prototype members are fields: __proto__, toString, constructor", () => {
  const from = JSON.parse('{"spec":{"__proto__":{"x":1},"toString":"a"}}');
  const to = JSON.parse('{"spec":{"__proto__":{"x":2},"constructor":"c"}}');
  const patch = mergePatch(from, to) as { spec: Record<string, unknown> };
  assert.equal(
    JSON.stringify(patch),
    '{"spec":{"__proto__":{"x":2},"constructor":"c","toString":null}}',
    "the __proto__ change is sent, the removed toString is null",
  );
  assert.equal(Object.getPrototypeOf(patch.spec), Object.prototype);
  assert.ok(!jsonEqual(from, to));
});
