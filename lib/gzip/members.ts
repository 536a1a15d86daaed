// The gzip file format (RFC 1952) around DEFLATE data: a sequence of members, each a header, a
// DEFLATE stream and a trailer with the CRC-32 and length of the member's data.
import { crc32, crc32Byte } from "./crc32.ts";
import { InflateError, Inflater, NEED_INPUT, STREAM_END } from "./inflate.ts";

// Decoder states, in the order a member's parts come.
const G_FIRST = 0; // before the first member: the data may also end here (an empty body)
const G_NEXT = 1; // after a member: the data ends, or another member starts
const G_ID2 = 2;
const G_METHOD = 3;
const G_FLAGS = 4;
const G_FIXED = 5; // MTIME, XFL and OS: 6 bytes, not used
const G_XLEN = 6;
const G_EXTRA = 7;
const G_NAME = 8;
const G_COMMENT = 9;
const G_HCRC = 10;
const G_DATA = 11;
const G_TRAILER = 12;

const ID1 = 0x1f, ID2 = 0x8b, CM_DEFLATE = 8;
const FHCRC = 2, FEXTRA = 4, FNAME = 8, FCOMMENT = 16, RESERVED = 0xe0;

/**
 * Decodes gzip data of one or more concatenated members (as kube-apiserver sends: one per flush)
 * pushed in chunks split anywhere, one output slice of at most 16 KiB per `read`, so a member is
 * never held whole. Each member's CRC-32 and length are checked; anything after a member other than
 * another member is an error, as is data ending inside one.
 */
export class GzipDecoder {
  readonly #inflater = new Inflater();
  #state = G_FIRST;
  #flags = 0;
  // Bytes of the current header field read, or of the trailer.
  #count = 0;
  // A field's length (FEXTRA), or a value being read little-endian (XLEN, header CRC, trailer word).
  #value = 0;
  #headerCrc = 0;
  #crc = 0;
  // The member's output length, modulo 2^32 as the trailer has it.
  #size = 0;
  #failed = false;

  /** Gives the next chunk of input; call only after `read` returned null. */
  push(chunk: Uint8Array): void {
    this.#inflater.push(chunk);
  }

  /**
   * The next slice of decoded data, or null when the input pushed so far is used up.
   * @throws {InflateError} on invalid data; the decoder is unusable afterwards.
   */
  read(): Uint8Array | null {
    if (this.#failed) throw new TypeError("The gzip decoder has failed");
    try {
      return this.#read();
    } catch (err) {
      this.#failed = true;
      throw err;
    }
  }

  /**
   * Says the input has ended, after `read` returned null.
   * @throws {InflateError} if it ended inside a member.
   */
  finish(): void {
    if (this.#state !== G_FIRST && this.#state !== G_NEXT) {
      this.#failed = true;
      throw new InflateError("unexpected end of data");
    }
  }

  #read(): Uint8Array | null {
    const inflater = this.#inflater;
    for (;;) {
      if (this.#state === G_DATA) {
        const status = inflater.inflate();
        if (status === STREAM_END) {
          this.#state = G_TRAILER;
          this.#count = 0;
        }
        if (inflater.pending > 0) {
          const out = inflater.take();
          this.#crc = crc32(this.#crc, out);
          this.#size = (this.#size + out.length) >>> 0;
          return out;
        }
        if (status === NEED_INPUT) return null;
        continue;
      }
      const b = inflater.readByte();
      if (b < 0) return null;
      this.#byte(b);
    }
  }

  // One byte of a header or trailer, or the first byte after a member.
  #byte(b: number): void {
    const state = this.#state;
    if (state < G_HCRC) this.#headerCrc = crc32Byte(this.#headerCrc, b);
    switch (state) {
      case G_FIRST:
      case G_NEXT:
        if (b !== ID1) {
          throw new InflateError(state === G_FIRST ? "not gzip data" : "trailing data after a gzip member");
        }
        this.#headerCrc = crc32Byte(0, b);
        this.#state = G_ID2;
        return;
      case G_ID2:
        if (b !== ID2) throw new InflateError("not gzip data");
        this.#state = G_METHOD;
        return;
      case G_METHOD:
        if (b !== CM_DEFLATE) throw new InflateError("unknown compression method");
        this.#state = G_FLAGS;
        return;
      case G_FLAGS:
        if (b & RESERVED) throw new InflateError("reserved header flags set");
        this.#flags = b;
        this.#count = 0;
        this.#state = G_FIXED;
        return;
      case G_FIXED:
        if (++this.#count === 6) this.#field(G_XLEN);
        return;
      case G_XLEN:
        this.#value |= b << (8 * this.#count);
        if (++this.#count === 2) {
          this.#count = 0;
          this.#state = G_EXTRA;
          if (this.#value === 0) this.#field(G_NAME);
        }
        return;
      case G_EXTRA:
        if (++this.#count === this.#value) this.#field(G_NAME);
        return;
      case G_NAME:
        if (b === 0) this.#field(G_COMMENT);
        return;
      case G_COMMENT:
        if (b === 0) this.#field(G_HCRC);
        return;
      case G_HCRC:
        this.#value |= b << (8 * this.#count);
        if (++this.#count === 2) {
          if (this.#value !== (this.#headerCrc & 0xffff)) throw new InflateError("header CRC mismatch");
          this.#field(G_DATA);
        }
        return;
      case G_TRAILER:
        this.#value |= b << (8 * (this.#count & 3));
        if (++this.#count === 4) {
          if (this.#value >>> 0 !== this.#crc) throw new InflateError("CRC-32 mismatch");
          this.#value = 0;
        } else if (this.#count === 8) {
          if (this.#value >>> 0 !== this.#size) throw new InflateError("length mismatch");
          this.#state = G_NEXT;
        }
        return;
      default:
        throw new TypeError(`Unexpected gzip state ${state}`);
    }
  }

  // Moves to the first header field from `from` on that the flags say is present, or to the data.
  #field(from: number): void {
    const flags = this.#flags;
    let next = from;
    if (next === G_XLEN && !(flags & FEXTRA)) next = G_NAME;
    if (next === G_NAME && !(flags & FNAME)) next = G_COMMENT;
    if (next === G_COMMENT && !(flags & FCOMMENT)) next = G_HCRC;
    if (next === G_HCRC && !(flags & FHCRC)) next = G_DATA;
    this.#count = 0;
    this.#value = 0;
    this.#state = next;
    if (next === G_DATA) {
      this.#inflater.reset();
      this.#crc = 0;
      this.#size = 0;
    }
  }
}
