import assert from "node:assert/strict";
import { checkRangeCount, fnv1a64Hex, MAX_RANGES, rangeBounds, rangeOf } from "../../lib/shard/hash_range.ts";
import { shardSelector } from "../../lib/shard/shard_selector.ts";

// Computed with Go's hash/fnv (fnv.New64a, Write([]byte(v)), %016x): the hash kube-apiserver applies in
// k8s.io/apimachinery/pkg/sharding/hash.go.
const GO_FNV1A64: [string, string][] = [
  ["", "cbf29ce484222325"],
  ["a", "af63dc4c8601ec8c"],
  ["default", "ebada5168620c5fe"],
  ["kube-system", "df65c7bc1d82b35e"],
  ["3f1c2b8e-9d4a-4c55-8f3e-0a1b2c3d4e5f", "87a4d684337fbb34"],
  ["ünïcødé-名前", "e7e02dcccc2412aa"],
  ["ffffffff-ffff-ffff-ffff-ffffffffffff", "7718f1b2f3cdd331"],
];

/** The same hash with BigInt, written from the FNV-1a definition: a second implementation to compare with. */
function fnvBig(value: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(value)) {
    h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

Deno.test("the hash is 64-bit FNV-1a of the UTF-8 bytes, as Go's hash/fnv computes it", () => {
  for (const [value, hex] of GO_FNV1A64) assert.equal(fnv1a64Hex(value), hex, value);
});

Deno.test("the limb arithmetic agrees with BigInt FNV-1a on 2,000 random UIDs", () => {
  for (let i = 0; i < 2000; i++) {
    const uid = crypto.randomUUID();
    assert.equal(fnv1a64Hex(uid), fnvBig(uid).toString(16).padStart(16, "0"), uid);
  }
});

Deno.test("rangeOf is the range whose [start, end) holds the hash, for every power-of-two count", () => {
  for (let bits = 0; bits <= 10; bits++) {
    const ranges = 2 ** bits;
    for (let i = 0; i < 200; i++) {
      const uid = crypto.randomUUID();
      const index = rangeOf(uid, ranges);
      const { start, end } = rangeBounds(index, ranges);
      const h = fnvBig(uid);
      assert.ok(BigInt(start) <= h && h < BigInt(end), `${uid} in range ${index} of ${ranges}`);
    }
  }
});

Deno.test("bounds are 16 hex digits except the end of the last range, 2^64", () => {
  assert.deepEqual(rangeBounds(0, 1), { start: "0x0000000000000000", end: "0x10000000000000000" });
  assert.deepEqual(rangeBounds(1, 4), { start: "0x4000000000000000", end: "0x8000000000000000" });
  assert.deepEqual(rangeBounds(3, 4), { start: "0xc000000000000000", end: "0x10000000000000000" });
});

Deno.test("range counts must be powers of two up to the maximum", () => {
  for (const bad of [0, 3, 12, -4, 1.5, MAX_RANGES * 2]) {
    assert.throws(() => checkRangeCount(bad), RangeError);
  }
  for (const good of [1, 2, 16, MAX_RANGES]) checkRangeCount(good);
  assert.throws(() => rangeBounds(4, 4), RangeError);
});

Deno.test("a selector merges adjacent ranges and joins the rest with ||", () => {
  assert.equal(
    shardSelector("uid", [3, 0, 1], 4),
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || " +
      "shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
  );
  assert.equal(
    shardSelector("namespace", [0, 1, 2, 3], 4),
    "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')",
  );
  assert.equal(shardSelector("uid", [], 4), undefined);
});
