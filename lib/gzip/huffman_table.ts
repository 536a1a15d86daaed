// Lookup tables for the canonical Huffman codes of DEFLATE (RFC 1951 section 3.2.2).
//
// DEFLATE sends a code's bits first-bit-first into the low end of the bit buffer, so a table is
// indexed by the next `rootBits` bits of input as they sit in the buffer (the code bit-reversed). A
// code of length L <= rootBits fills every root entry whose low L bits are it; a longer code lives in
// a subtable, reached from the root entry of its first rootBits bits and indexed by the bits after
// them, sized for the longest code sharing that prefix.
//
// An entry is one int32:
//   bits 0-3    the code's length (the bits to drop once decoded);
//   bits 4-7    extra bits to read after the code (a match), or a subtable's index bits (K_SUB);
//   bits 8-11   the kind: K_LIT, K_MATCH, K_END or K_SUB; 0 is an invalid code;
//   bits 16-31  the value: a literal, a length or distance base, or a subtable's offset.
// The kind and value (and extra bits) come from a per-symbol template; the length is added here.

/** A literal byte, or a code-length symbol. */
export const K_LIT = 0x100;
/** A match length or distance: a base plus extra bits. */
export const K_MATCH = 0x200;
/** The end of a block. */
export const K_END = 0x400;
/** A pointer to a subtable for codes longer than the root bits. */
export const K_SUB = 0x800;

const MAX_BITS = 15;
const counts = new Uint16Array(MAX_BITS + 1);
const laneCounts = new Uint16Array(64);
const nextCode = new Uint16Array(MAX_BITS + 1);
// The subtable bits per root prefix during one build, ALLOCATED once its subtable is; zeroed again
// before the build returns.
const subBits = new Uint8Array(1 << 10);
const ALLOCATED = 0x80;
// The symbols longer than the root bits, and their codes (bit-reversed), during one build.
const longs = new Uint16Array(288);
const codes = new Uint16Array(288);
const REVERSED = new Uint8Array(256);
for (let i = 0; i < 256; i++) {
  let r = 0;
  for (let b = 0; b < 8; b++) r |= ((i >>> b) & 1) << (7 - b);
  REVERSED[i] = r;
}

/** A decoding table for one Huffman code, rebuilt in place for each block that defines one. */
export class HuffmanTable {
  /** The entries: the root table first, then the subtables. Grows when a code needs more room. */
  entries: Int32Array;
  /** How many bits index the root table (at most 10). */
  readonly rootBits: number;

  /** `capacity` entries to start with; more are allocated if a code needs them. */
  constructor(rootBits: number, capacity: number = 2 << rootBits) {
    this.rootBits = rootBits;
    this.entries = new Int32Array(Math.max(capacity, 1 << rootBits));
  }

  /**
   * Builds the table for the code whose lengths are `lengths[start, start + count)` (0 = symbol
   * unused), taking each symbol's kind and value from `templates`. Returns null, or why the lengths do
   * not form a valid code: "over-subscribed", or "incomplete" unless `incompleteOk` and there is at
   * most one code and it is one bit long (RFC 1951 allows one distance code; such codes leave invalid
   * entries behind).
   */
  build(
    lengths: Uint8Array,
    start: number,
    count: number,
    templates: Int32Array,
    incompleteOk: boolean,
  ): string | null {
    const perLength = counts, next = nextCode, sub = subBits, longSymbols = longs, longCodes = codes;
    // Four sets of counters, so that runs of equal lengths do not wait on one counter.
    const lanes = laneCounts;
    lanes.fill(0);
    const end = start + count;
    let i = start;
    for (const last = end - 4; i <= last; i += 4) {
      lanes[lengths[i]!]!++;
      lanes[16 + lengths[i + 1]!]!++;
      lanes[32 + lengths[i + 2]!]!++;
      lanes[48 + lengths[i + 3]!]!++;
    }
    for (; i < end; i++) lanes[lengths[i]!]!++;
    perLength[0] = 0;
    for (let len = 1; len <= MAX_BITS; len++) {
      perLength[len] = lanes[len]! + lanes[16 + len]! + lanes[32 + len]! + lanes[48 + len]!;
    }
    let left = 1;
    let used = 0;
    for (let len = 1; len <= MAX_BITS; len++) {
      left = (left << 1) - perLength[len]!;
      if (left < 0) return "over-subscribed";
      used += perLength[len]!;
    }
    if (left > 0 && !(incompleteOk && used <= 1 && perLength[1] === used)) return "incomplete";

    // The first code of each length, as RFC 1951 defines canonical codes.
    let code = 0;
    for (let len = 1; len <= MAX_BITS; len++) {
      code = (code + perLength[len - 1]!) << 1;
      next[len] = code;
    }
    const root = this.rootBits;
    const rootSize = 1 << root;
    const rootMask = rootSize - 1;
    let t = this.entries;
    // A complete code writes every root entry; an incomplete one leaves some invalid (0).
    if (left > 0) t.fill(0, 0, rootSize);
    let nlong = 0;
    for (let sym = 0; sym < count; sym++) {
      const len = lengths[start + sym]!;
      if (len === 0) continue;
      const c = next[len]!++;
      const rev = ((REVERSED[c & 255]! << 8) | REVERSED[c >>> 8]!) >>> (16 - len);
      if (len <= root) {
        const entry = templates[sym]! | len;
        for (let i = rev; i < rootSize; i += 1 << len) t[i] = entry;
      } else {
        longSymbols[nlong] = sym;
        longCodes[nlong++] = rev;
        const p = rev & rootMask;
        if (len - root > sub[p]!) sub[p] = len - root;
      }
    }
    if (nlong === 0) return null;

    let free = rootSize;
    for (let k = 0; k < nlong; k++) {
      const sym = longSymbols[k]!;
      const rev = longCodes[k]!;
      const len = lengths[start + sym]!;
      const p = rev & rootMask;
      let bits = sub[p]!;
      if ((bits & ALLOCATED) === 0) {
        const size = 1 << bits;
        if (free + size > t.length) {
          const grown = new Int32Array(Math.max(t.length * 2, free + size));
          grown.set(t.subarray(0, free));
          this.entries = t = grown;
        }
        t.fill(0, free, free + size);
        t[p] = K_SUB | bits << 4 | free << 16;
        free += size;
        sub[p] = bits | ALLOCATED;
      } else bits &= ~ALLOCATED;
      const base = t[p]! >>> 16;
      const entry = templates[sym]! | len;
      for (let i = rev >>> root; i < 1 << bits; i += 1 << (len - root)) t[base + i] = entry;
    }
    for (let k = 0; k < nlong; k++) sub[longCodes[k]! & rootMask] = 0;
    return null;
  }
}
