import assert from "node:assert/strict";
import { deepFreeze } from "../../lib/_internal/deep_freeze.ts";

Deno.test("attack: deepFreeze freezes an object nested 100,000 deep, down to the last level", () => {
  const depth = 100_000;
  const value = JSON.parse('{"a":'.repeat(depth) + "{}" + "}".repeat(depth)) as Record<string, unknown>;
  assert.equal(deepFreeze(value), value);
  let levels = 0;
  for (let at: unknown = value; typeof at === "object" && at !== null; levels++) {
    assert.ok(Object.isFrozen(at));
    at = (at as Record<string, unknown>)["a"];
  }
  assert.equal(levels, depth + 1);
});

Deno.test("deepFreeze freezes arrays and cycles and leaves primitives alone", () => {
  const value: Record<string, unknown> = { list: [{ x: 1 }], n: 1 };
  value["self"] = value;
  deepFreeze(value);
  assert.ok(Object.isFrozen(value["list"]) && Object.isFrozen((value["list"] as object[])[0]));
  assert.throws(() => void ((value["list"] as unknown[]).push(2)), TypeError);
  assert.equal(deepFreeze(3), 3);
  assert.equal(deepFreeze(null), null);
});
