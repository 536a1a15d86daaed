import assert from "node:assert/strict";
import { mutableCopy } from "../../lib/resources/mod.ts";

/** JSON text of `[[[...]]]` or `{"a":{"a":...}}`, `depth` levels, parsed as the decoders parse it. */
function parsedDeep(depth: number, kind: "object" | "array"): unknown {
  return JSON.parse(
    kind === "object"
      ? '{"a":'.repeat(depth) + "0" + "}".repeat(depth)
      : "[".repeat(depth) + "]".repeat(depth),
  );
}

function depthOf(value: unknown): number {
  let depth = 0;
  for (let at = value; typeof at === "object" && at !== null; depth++) {
    at = Array.isArray(at) ? at[0] : (at as Record<string, unknown>)["a"];
  }
  return depth;
}

Deno.test("attack: mutableCopy copies objects and arrays nested 10,000 and 100,000 deep (structuredClone stopped near 2,700)", () => {
  for (const depth of [10_000, 100_000]) {
    for (const kind of ["object", "array"] as const) {
      const source = parsedDeep(depth, kind);
      const copy = mutableCopy(source);
      assert.notEqual(copy, source);
      assert.equal(depthOf(copy), depth, `${kind} ${depth}`);
      assert.equal(JSON.stringify(copy), JSON.stringify(source));
    }
  }
});

Deno.test("a __proto__ key in the data stays a field of the copy, never its prototype (as with structuredClone)", () => {
  const source = JSON.parse('{"spec":{"__proto__":{"polluted":true},"x":1}}') as {
    spec: Record<string, unknown>;
  };
  const copy = mutableCopy(source);
  assert.equal(Object.getPrototypeOf(copy.spec), Object.prototype);
  assert.equal((copy.spec as { polluted?: boolean }).polluted, undefined);
  assert.ok(Object.hasOwn(copy.spec, "__proto__"));
  assert.equal(JSON.stringify(copy), JSON.stringify(source));
});

Deno.test("mutableCopy keeps what structuredClone kept: undefined fields, shared references, cycles, Dates", () => {
  const shared = { n: 1 };
  const source: Record<string, unknown> = {
    a: shared,
    b: shared,
    u: undefined,
    when: new Date(5),
    list: [1, "x", null],
  };
  source["self"] = source;
  const copy = mutableCopy(source);
  assert.notEqual(copy["a"], shared);
  assert.equal(copy["a"], copy["b"], "a shared object stays shared");
  assert.equal(copy["self"], copy, "a cycle stays a cycle");
  assert.ok(Object.hasOwn(copy, "u"));
  assert.ok(copy["when"] instanceof Date && copy["when"] !== source["when"] && copy["when"].getTime() === 5);
  assert.deepEqual(copy["list"], [1, "x", null]);
  const frozen: { readonly inner: { readonly v: number } } = Object.freeze({
    inner: Object.freeze({ v: 1 }),
  });
  const thawed = mutableCopy(frozen);
  thawed.inner.v = 2;
  assert.equal(frozen.inner.v, 1);
  assert.throws(() => mutableCopy({ f: () => 1 }), DOMException, "functions cannot be copied, as before");
});
