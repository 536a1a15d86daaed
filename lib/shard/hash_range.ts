/**
 * The hash the API server's sharded list and watch uses, and the cut of its 64-bit space into ranges.
 *
 * kube-apiserver (v1.36+, feature gate `ShardedListAndWatch`) hashes the selected field's string bytes
 * with 64-bit FNV-1a (`k8s.io/apimachinery/pkg/sharding/hash.go`) and keeps an object when the hash lies
 * in `[start, end)` of one of the selector's ranges (`selector.go`). This module computes the same hash
 * on the client, so a server without the feature can be replaced by filtering here, and so both sides
 * agree on which range an object belongs to. tests/shard/hash_range_test.ts holds it to values computed
 * by Go's `hash/fnv`.
 * @module
 */

/** Largest number of ranges: each is one Lease, renewed every retry period by its owner. */
export const MAX_RANGES = 1024;

/**
 * 64-bit FNV-1a of `value`'s UTF-8 bytes as four 16-bit limbs, most significant first. Limbs keep every
 * product below 2^53, so no BigInt is needed on the hot path (every cached object is hashed).
 */
export function fnv1a64Limbs(value: string): [number, number, number, number] {
  // Offset basis 0xcbf29ce484222325, least significant limb first.
  let h0 = 0x2325, h1 = 0x8422, h2 = 0x9ce4, h3 = 0xcbf2;
  // ASCII (UIDs, namespaces) is its own UTF-8: its char codes are read without allocating bytes.
  const bytes = isAscii(value) ? undefined : encoder.encode(value);
  const length = bytes ? bytes.length : value.length;
  for (let i = 0; i < length; i++) {
    h0 ^= bytes ? bytes[i]! : value.charCodeAt(i);
    // Multiply by the prime 0x100000001b3 = 2^40 + 0x1b3 (limbs: 0x1b3, 0, 0x100, 0), modulo 2^64.
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + h0 * 0x100 + (t1 >>> 16);
    const t3 = h3 * 0x1b3 + h1 * 0x100 + (t2 >>> 16);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  }
  return [h3, h2, h1, h0];
}

/** 64-bit FNV-1a of `value` as 16 lowercase hex digits, as the server formats it (`%016x`). */
export function fnv1a64Hex(value: string): string {
  return fnv1a64Limbs(value).map((limb) => limb.toString(16).padStart(4, "0")).join("");
}

/** Throws a RangeError unless `ranges` is a power of two from 1 to {@linkcode MAX_RANGES}. */
export function checkRangeCount(ranges: number): void {
  if (!Number.isInteger(ranges) || ranges < 1 || ranges > MAX_RANGES || (ranges & (ranges - 1)) !== 0) {
    throw new RangeError(
      `The number of shard ranges must be a power of two from 1 to ${MAX_RANGES}, got ${ranges}`,
    );
  }
}

/**
 * The range (0 … ranges-1) that `value` hashes into when the 64-bit space is cut into `ranges` equal
 * ranges: the top log2(ranges) bits of the hash.
 */
export function rangeOf(value: string, ranges: number): number {
  checkRangeCount(ranges);
  const [h3, h2] = fnv1a64Limbs(value);
  const bits = Math.log2(ranges);
  const top32 = h3 * 0x10000 + h2;
  return Math.floor(top32 / 2 ** (32 - bits));
}

/**
 * Bounds of range `index` of `ranges` as the server's selector spells them: `'0x'` and exactly 16 hex
 * digits, except the exclusive end of the last range, `0x10000000000000000` (2^64). The server rejects
 * shorter forms such as `0x0` (500, "hexStart must be a 0x-prefixed 16-digit hex value").
 */
export function rangeBounds(index: number, ranges: number): { start: string; end: string } {
  checkRangeCount(ranges);
  if (!Number.isInteger(index) || index < 0 || index >= ranges) {
    throw new RangeError(`Range index ${index} is outside 0..${ranges - 1}`);
  }
  return { start: hexBound(index, ranges), end: hexBound(index + 1, ranges) };
}

function hexBound(index: number, ranges: number): string {
  const value = (BigInt(index) << 64n) / BigInt(ranges);
  return value === 1n << 64n ? "0x10000000000000000" : `0x${value.toString(16).padStart(16, "0")}`;
}

const encoder = new TextEncoder();

function isAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0x7f) return false;
  return true;
}
