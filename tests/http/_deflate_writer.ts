// Hand-built DEFLATE and gzip data for the decoder tests: valid streams no encoder would write (one
// distance code, none at all) and invalid ones (bad code sets, bad repeats, bad distances).
import { crc32 } from "node:zlib";

/** Writes bits least significant first, and Huffman codes most significant bit first (RFC 1951 3.1.1). */
export class BitWriter {
  readonly #bytes: number[] = [];
  #acc = 0;
  #count = 0;

  /** Writes the low `n` bits of `value`. */
  bits(value: number, n: number): this {
    for (let i = 0; i < n; i++) {
      this.#acc |= ((value >>> i) & 1) << this.#count;
      if (++this.#count === 8) {
        this.#bytes.push(this.#acc);
        this.#acc = 0;
        this.#count = 0;
      }
    }
    return this;
  }

  /** Writes a Huffman code of `len` bits. */
  code(code: number, len: number): this {
    for (let i = len - 1; i >= 0; i--) this.bits((code >>> i) & 1, 1);
    return this;
  }

  /** Pads with zero bits to a byte boundary. */
  align(): this {
    if (this.#count > 0) this.bits(0, 8 - this.#count);
    return this;
  }

  /** Writes whole bytes (after aligning). */
  raw(bytes: ArrayLike<number>): this {
    this.align();
    for (let i = 0; i < bytes.length; i++) this.#bytes.push(bytes[i]!);
    return this;
  }

  /** The bytes written, the last one padded. */
  finish(): Uint8Array {
    this.align();
    return Uint8Array.from(this.#bytes);
  }
}

/** The canonical codes for `lengths` (RFC 1951 section 3.2.2); 0-length symbols get none. */
export function canonicalCodes(lengths: readonly number[]): number[] {
  const count = new Array<number>(16).fill(0);
  for (const len of lengths) if (len > 0) count[len]!++;
  const next = new Array<number>(16).fill(0);
  let code = 0;
  for (let len = 1; len < 16; len++) {
    code = (code + count[len - 1]!) << 1;
    next[len] = code;
  }
  return lengths.map((len) => (len > 0 ? next[len]!++ : 0));
}

/** Writes one symbol of the code given by `lengths` and `codes`. */
export function writeSymbol(
  w: BitWriter,
  sym: number,
  lengths: readonly number[],
  codes: readonly number[],
): void {
  if (!lengths[sym]) throw new Error(`symbol ${sym} has no code`);
  w.code(codes[sym]!, lengths[sym]!);
}

const CLEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** A complete code length code: symbols 0-12 get 4 bits, 13-18 get 5. */
export const CLEN_LENGTHS: readonly number[] = Array.from({ length: 19 }, (_, s) => (s <= 12 ? 4 : 5));

/** A code length symbol: a length 0-15, or a repeat code 16-18 with its extra bits' value. */
export type LengthSymbol = number | [16 | 17 | 18, number];

/** Options for an unusual dynamic block header. */
export interface DynamicHeader {
  /** HLIT + 257 as written (default: litLengths.length). */
  nlit?: number;
  /** HDIST + 1 as written (default: distLengths.length). */
  ndist?: number;
  /** The code length code's lengths (default CLEN_LENGTHS). */
  clenLengths?: readonly number[];
  /** The code length symbols to write (default: each length as itself). */
  symbols?: readonly LengthSymbol[];
}

/**
 * Writes a dynamic block header (BFINAL, BTYPE 2, HLIT, HDIST, HCLEN, the code length code, the
 * lengths) and returns the literal/length and distance codes for writing the block's data.
 */
export function dynamicHeader(
  w: BitWriter,
  final: boolean,
  litLengths: readonly number[],
  distLengths: readonly number[],
  options: DynamicHeader = {},
): { lit: number[]; dist: number[] } {
  const clenLengths = options.clenLengths ?? CLEN_LENGTHS;
  const clenCodes = canonicalCodes(clenLengths);
  w.bits(final ? 1 : 0, 1).bits(2, 2);
  w.bits((options.nlit ?? litLengths.length) - 257, 5);
  w.bits((options.ndist ?? distLengths.length) - 1, 5);
  w.bits(19 - 4, 4);
  for (const s of CLEN_ORDER) w.bits(clenLengths[s]!, 3);
  const symbols = options.symbols ?? [...litLengths, ...distLengths];
  for (const s of symbols) {
    if (typeof s === "number") writeSymbol(w, s, clenLengths, clenCodes);
    else {
      writeSymbol(w, s[0], clenLengths, clenCodes);
      w.bits(s[1], s[0] === 16 ? 2 : s[0] === 17 ? 3 : 7);
    }
  }
  return { lit: canonicalCodes(litLengths), dist: canonicalCodes(distLengths) };
}

/** Lengths for symbols 0..n-1 with the given symbols set, as `[[symbol, length], ...]`. */
export function lengthsOf(n: number, set: ReadonlyArray<readonly [number, number]>): number[] {
  const lengths = new Array<number>(n).fill(0);
  for (const [sym, len] of set) lengths[sym] = len;
  return lengths;
}

/** Writes a symbol of the fixed literal/length code (RFC 1951 section 3.2.6). */
export function fixedSymbol(w: BitWriter, sym: number): void {
  if (sym < 144) w.code(0x30 + sym, 8);
  else if (sym < 256) w.code(0x190 + sym - 144, 9);
  else if (sym < 280) w.code(sym - 256, 7);
  else w.code(0xc0 + sym - 280, 8);
}

/** Writes a fixed block of `text` as literals, then `tail` (more symbols), then end of block. */
export function fixedBlock(
  w: BitWriter,
  final: boolean,
  text: string,
  tail: (w: BitWriter) => void = () => {},
): void {
  w.bits(final ? 1 : 0, 1).bits(1, 2);
  for (const c of new TextEncoder().encode(text)) fixedSymbol(w, c);
  tail(w);
  fixedSymbol(w, 256);
}

/** A gzip header with no optional fields. */
export const PLAIN_HEADER: readonly number[] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

/** Wraps raw DEFLATE data of `data` into a gzip member with `header` and a correct trailer. */
export function gzipMember(
  deflated: Uint8Array,
  data: Uint8Array,
  header: readonly number[] = PLAIN_HEADER,
): Uint8Array {
  const out = new Uint8Array(header.length + deflated.length + 8);
  out.set(header);
  out.set(deflated, header.length);
  const view = new DataView(out.buffer);
  view.setUint32(header.length + deflated.length, crc32(data), true);
  view.setUint32(header.length + deflated.length + 4, data.length, true);
  return out;
}
