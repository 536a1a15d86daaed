// A streaming DEFLATE decoder (RFC 1951).
//
// Output goes into one buffer: WINDOW bytes of history (the most a distance may reach back), then
// room for OUTPUT bytes of new data. The caller takes the new data out (a copy) whenever `inflate`
// stops; once the room is used up the last WINDOW bytes move to the front. So memory is bounded
// whatever the input, and no output slice is larger than OUTPUT bytes.
//
// Input is read through a 32-bit bit buffer, least significant bit first. `inflate` runs a fast
// loop while at least FAST_INPUT input bytes and MAX_MATCH bytes of room remain, so that it can
// decode a whole symbol (code, extra bits, distance, copy) without checking either; near the end of
// an input chunk or of the room it decodes one step at a time, and can stop and resume anywhere,
// even inside a code.
import { HuffmanTable, K_END, K_LIT, K_MATCH, K_SUB } from "./huffman_table.ts";

/** The compressed data is not valid DEFLATE or gzip; the message says what is wrong. */
export class InflateError extends Error {
  /** Always "InflateError". */
  override get name(): string {
    return "InflateError";
  }
}

/** `inflate` used up the input; push more (or, if there is none, the data is truncated). */
export const NEED_INPUT = 0;
/** `inflate` filled the output room; take the output and call it again. */
export const OUTPUT_FULL = 1;
/** `inflate` reached the end of the final block; any input after it is left for `readByte`. */
export const STREAM_END = 2;

const WINDOW = 32 * 1024;
const OUTPUT = 16 * 1024;
const MAX_MATCH = 258;
// The fast loop's three refills per symbol read at most 3 + 3 + 4 bytes ahead.
const FAST_INPUT = 10;
// Outputs up to SHARED_MAX bytes are views into SHARED-byte buffers.
const SHARED = 16 * 1024;
const SHARED_MAX = 4 * 1024;
// Once everything is taken and less than this much room is left, the window moves to the front.
const COMPACT_ROOM = 4 * 1024;

const LIT_BITS = 10;
const LIT_MASK = (1 << LIT_BITS) - 1;
const DIST_BITS = 8;
const DIST_MASK = (1 << DIST_BITS) - 1;
const CLEN_BITS = 7;
const CLEN_MASK = (1 << CLEN_BITS) - 1;

// Decoder states.
const S_BLOCK = 0;
const S_STORED_LENGTH = 1;
const S_STORED = 2;
const S_TABLE = 3;
const S_CLENS = 4;
const S_LENS = 5;
const S_CODES = 6;
const S_DIST = 7;
const S_DIST_EXTRA = 8;
const S_COPY = 9;
const S_DONE = 10;

// The per-symbol kind, value and extra bits of the three alphabets (RFC 1951 section 3.2.5).
// Lengths 286 and 287 and distances 30 and 31 stay 0: they may appear in the fixed code, never in data.
const LIT_TEMPLATES = new Int32Array(288);
const DIST_TEMPLATES = new Int32Array(32);
const CLEN_TEMPLATES = new Int32Array(19);
{
  for (let s = 0; s < 256; s++) LIT_TEMPLATES[s] = K_LIT | s << 16;
  LIT_TEMPLATES[256] = K_END;
  let base = 3;
  for (let s = 257; s < 285; s++) {
    const extra = s < 265 ? 0 : (s - 261) >>> 2;
    LIT_TEMPLATES[s] = K_MATCH | extra << 4 | base << 16;
    base += 1 << extra;
  }
  LIT_TEMPLATES[285] = K_MATCH | 258 << 16;
  base = 1;
  for (let d = 0; d < 30; d++) {
    const extra = d < 4 ? 0 : (d >>> 1) - 1;
    DIST_TEMPLATES[d] = K_MATCH | extra << 4 | base << 16;
    base += 1 << extra;
  }
  for (let s = 0; s < 19; s++) CLEN_TEMPLATES[s] = K_LIT | s << 16;
}
// The order in which a dynamic block lists the code length code's lengths.
const CLEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

const FIXED_LIT = new HuffmanTable(LIT_BITS);
const FIXED_DIST = new HuffmanTable(DIST_BITS);
{
  const lengths = new Uint8Array(288);
  lengths.fill(8, 0, 144);
  lengths.fill(9, 144, 256);
  lengths.fill(7, 256, 280);
  lengths.fill(8, 280, 288);
  FIXED_LIT.build(lengths, 0, 288, LIT_TEMPLATES, false);
  FIXED_DIST.build(lengths.fill(5, 0, 32), 0, 32, DIST_TEMPLATES, false);
}

const EMPTY = new Uint8Array(0);

/**
 * A raw DEFLATE decoder that takes input in chunks of any size and gives output in slices of at most
 * 16 KiB, holding a 32 KiB window and at most one input chunk. `reset` starts another stream on the
 * same input (gzip members), and `readByte` reads the byte-aligned data around streams.
 */
export class Inflater {
  #input: Uint8Array = EMPTY;
  #at = 0;
  #bits = 0;
  #bitCount = 0;
  readonly #window = new Uint8Array(WINDOW + OUTPUT);
  #end = WINDOW;
  #taken = WINDOW;
  #shared: Uint8Array = EMPTY;
  #sharedAt = 0;
  // How far back the current stream's output reaches (at most WINDOW): the longest valid distance.
  #reach = 0;
  #state = S_BLOCK;
  #final = false;
  #lit: HuffmanTable = FIXED_LIT;
  #dist: HuffmanTable = FIXED_DIST;
  readonly #dynamicLit = new HuffmanTable(LIT_BITS);
  readonly #dynamicDist = new HuffmanTable(DIST_BITS);
  readonly #clen = new HuffmanTable(CLEN_BITS, 1 << CLEN_BITS);
  readonly #lengths = new Uint8Array(320);
  #nlit = 0;
  #ndist = 0;
  #nclen = 0;
  #index = 0;
  // A stored block's bytes left, or a match's length left to copy.
  #left = 0;
  // A match's distance (its base, until the extra bits are read).
  #distance = 0;
  #extra = 0;

  /** Gives the next input chunk; the previous one must have been used up. */
  push(chunk: Uint8Array): void {
    if (this.#at < this.#input.length) throw new TypeError("The previous input is not used up");
    this.#input = chunk;
    this.#at = 0;
  }

  /** How many output bytes `take` would return. */
  get pending(): number {
    return this.#end - this.#taken;
  }

  /**
   * The output produced since the last call, as an array of its own or, when small, a view into a
   * 16 KiB buffer shared with other small outputs (never written again): one allocation for many
   * small gzip members.
   */
  take(): Uint8Array {
    const start = this.#taken, end = this.#end;
    const n = end - start;
    this.#taken = end;
    if (n > SHARED_MAX) return this.#window.slice(start, end);
    let at = this.#sharedAt;
    if (at + n > this.#shared.length) {
      this.#shared = new Uint8Array(SHARED);
      at = 0;
    }
    const out = this.#shared.subarray(at, at + n);
    out.set(this.#window.subarray(start, end));
    this.#sharedAt = at + n;
    return out;
  }

  /** Starts a new stream, keeping the input not yet read. */
  reset(): void {
    this.#state = S_BLOCK;
    this.#final = false;
    this.#reach = 0;
  }

  /**
   * The next input byte, or -1 when the input is used up. Only between streams (before the first
   * block, or after STREAM_END), where the input is byte-aligned.
   */
  readByte(): number {
    if (this.#bitCount >= 8) {
      const b = this.#bits & 255;
      this.#bits >>>= 8;
      this.#bitCount -= 8;
      return b;
    }
    return this.#at < this.#input.length ? this.#input[this.#at++]! : -1;
  }

  /**
   * Decodes until the input is used up (NEED_INPUT), the output room is full (OUTPUT_FULL), or the
   * stream ends (STREAM_END).
   * @throws {InflateError} on invalid data; the decoder is unusable afterwards.
   */
  inflate(): number {
    const win = this.#window;
    if (this.#end === this.#taken && win.length - this.#end < COMPACT_ROOM) {
      win.copyWithin(0, this.#end - WINDOW, this.#end);
      this.#end = this.#taken = WINDOW;
    }
    let state = this.#state;
    if (state === S_DONE) return STREAM_END;
    const input = this.#input;
    const inEnd = input.length;
    const winEnd = win.length;
    let at = this.#at;
    let bits = this.#bits;
    let count = this.#bitCount;
    let out = this.#end;
    // The lowest window position the current stream has written: no distance may reach below it.
    const floor = out - this.#reach;
    let status = NEED_INPUT;

    loop: for (;;) {
      switch (state) {
        case S_BLOCK: {
          if (this.#final) {
            bits >>>= count & 7;
            count -= count & 7;
            state = S_DONE;
            status = STREAM_END;
            break loop;
          }
          while (count < 3) {
            if (at === inEnd) break loop;
            bits |= input[at++]! << count;
            count += 8;
          }
          this.#final = (bits & 1) === 1;
          const type = (bits >>> 1) & 3;
          bits >>>= 3;
          count -= 3;
          if (type === 0) state = S_STORED_LENGTH;
          else if (type === 1) {
            this.#lit = FIXED_LIT;
            this.#dist = FIXED_DIST;
            state = S_CODES;
          } else if (type === 2) state = S_TABLE;
          else throw new InflateError("invalid block type");
          break;
        }
        case S_STORED_LENGTH: {
          bits >>>= count & 7;
          count -= count & 7;
          while (count < 32) {
            if (at === inEnd) break loop;
            bits |= input[at++]! << count;
            count += 8;
          }
          const len = bits & 0xffff;
          if ((bits >>> 16) !== (~len & 0xffff)) throw new InflateError("invalid stored block lengths");
          bits = 0;
          count = 0;
          this.#left = len;
          state = S_STORED;
          break;
        }
        case S_STORED: {
          let left = this.#left;
          const n = Math.min(left, inEnd - at, winEnd - out);
          if (n > 0) {
            win.set(input.subarray(at, at + n), out);
            at += n;
            out += n;
            left -= n;
            this.#left = left;
          }
          if (left === 0) {
            state = S_BLOCK;
            break;
          }
          if (out === winEnd) status = OUTPUT_FULL;
          break loop;
        }
        case S_TABLE: {
          while (count < 14) {
            if (at === inEnd) break loop;
            bits |= input[at++]! << count;
            count += 8;
          }
          this.#nlit = (bits & 31) + 257;
          this.#ndist = ((bits >>> 5) & 31) + 1;
          this.#nclen = ((bits >>> 10) & 15) + 4;
          bits >>>= 14;
          count -= 14;
          if (this.#nlit > 286) throw new InflateError("too many length codes");
          if (this.#ndist > 30) throw new InflateError("too many distance codes");
          this.#index = 0;
          state = S_CLENS;
          break;
        }
        case S_CLENS: {
          const lengths = this.#lengths;
          const n = this.#nclen;
          let i = this.#index;
          while (i < n) {
            while (count < 3) {
              if (at === inEnd) {
                this.#index = i;
                break loop;
              }
              bits |= input[at++]! << count;
              count += 8;
            }
            lengths[CLEN_ORDER[i++]!] = bits & 7;
            bits >>>= 3;
            count -= 3;
          }
          for (; i < 19; i++) lengths[CLEN_ORDER[i]!] = 0;
          const invalid = this.#clen.build(lengths, 0, 19, CLEN_TEMPLATES, false);
          if (invalid) throw new InflateError(`invalid code length code: ${invalid}`);
          this.#index = 0;
          state = S_LENS;
          break;
        }
        case S_LENS: {
          const lengths = this.#lengths;
          const table = this.#clen.entries;
          const total = this.#nlit + this.#ndist;
          let i = this.#index;
          while (i < total) {
            const e = table[bits & CLEN_MASK]!;
            const n = e & 15;
            const sym = e >>> 16;
            const extra = sym < 16 ? 0 : sym === 16 ? 2 : sym === 17 ? 3 : 7;
            if (n + extra > count) {
              if (at === inEnd) {
                this.#index = i;
                break loop;
              }
              bits |= input[at++]! << count;
              count += 8;
              continue;
            }
            bits >>>= n;
            count -= n;
            if (sym < 16) {
              lengths[i++] = sym;
              continue;
            }
            let value = 0;
            let repeat: number;
            if (sym === 16) {
              if (i === 0) throw new InflateError("invalid code length repeat: nothing to repeat");
              value = lengths[i - 1]!;
              repeat = 3 + (bits & 3);
            } else if (sym === 17) repeat = 3 + (bits & 7);
            else repeat = 11 + (bits & 127);
            bits >>>= extra;
            count -= extra;
            if (i + repeat > total) throw new InflateError("invalid code length repeat: too many lengths");
            lengths.fill(value, i, i + repeat);
            i += repeat;
          }
          const nlit = this.#nlit;
          if (lengths[256] === 0) throw new InflateError("missing end-of-block code");
          let invalid = this.#dynamicLit.build(lengths, 0, nlit, LIT_TEMPLATES, true);
          if (invalid) throw new InflateError(`invalid literal/length code: ${invalid}`);
          invalid = this.#dynamicDist.build(lengths, nlit, this.#ndist, DIST_TEMPLATES, true);
          if (invalid) throw new InflateError(`invalid distance code: ${invalid}`);
          this.#lit = this.#dynamicLit;
          this.#dist = this.#dynamicDist;
          state = S_CODES;
          break;
        }
        case S_CODES: {
          const lit = this.#lit.entries;
          if (at + FAST_INPUT <= inEnd && out + MAX_MATCH <= winEnd) {
            // The fast loop. A refill loads the next four bytes above the bits held and counts the
            // whole bytes that fit, leaving 24-31 bits counted: enough for a length code and its
            // extra bits (15 + 5), or a distance code (15); the distance's extra bits (13) may need
            // another. The bits of a partly fitting byte sit above the count, uncounted, until the
            // next refill ORs the same bits there again.
            const dist = this.#dist.entries;
            const inLast = inEnd - FAST_INPUT;
            const outLast = winEnd - MAX_MATCH;
            let ended = false;
            while (at <= inLast && out <= outLast) {
              bits |= (input[at]! | input[at + 1]! << 8 | input[at + 2]! << 16 | input[at + 3]! << 24) <<
                count;
              at += (31 - count) >>> 3;
              count |= 24;
              let e = lit[bits & LIT_MASK]!;
              if (e & K_SUB) e = lit[(e >>> 16) + ((bits >>> LIT_BITS) & ((1 << ((e >>> 4) & 15)) - 1))]!;
              let n = e & 15;
              bits >>>= n;
              count -= n;
              if (e & K_LIT) {
                win[out++] = e >>> 16;
                // Literals come in runs: take more without a refill while their bits are in.
                for (;;) {
                  e = lit[bits & LIT_MASK]!;
                  if ((e & K_LIT) === 0 || (e & 15) > count) break;
                  n = e & 15;
                  bits >>>= n;
                  count -= n;
                  win[out++] = e >>> 16;
                }
                continue;
              }
              if ((e & K_MATCH) === 0) {
                if (e & K_END) {
                  ended = true;
                  break;
                }
                throw new InflateError("invalid literal/length code");
              }
              let extra = (e >>> 4) & 15;
              const length = (e >>> 16) + (bits & ((1 << extra) - 1));
              bits >>>= extra;
              count -= extra;
              bits |= (input[at]! | input[at + 1]! << 8 | input[at + 2]! << 16 | input[at + 3]! << 24) <<
                count;
              at += (31 - count) >>> 3;
              count |= 24;
              e = dist[bits & DIST_MASK]!;
              if (e & K_SUB) e = dist[(e >>> 16) + ((bits >>> DIST_BITS) & ((1 << ((e >>> 4) & 15)) - 1))]!;
              n = e & 15;
              bits >>>= n;
              count -= n;
              if ((e & K_MATCH) === 0) throw new InflateError("invalid distance code");
              extra = (e >>> 4) & 15;
              if (count < extra) {
                bits |= (input[at]! | input[at + 1]! << 8 | input[at + 2]! << 16 | input[at + 3]! << 24) <<
                  count;
                at += (31 - count) >>> 3;
                count |= 24;
              }
              const distance = (e >>> 16) + (bits & ((1 << extra) - 1));
              bits >>>= extra;
              count -= extra;
              let from = out - distance;
              if (from < floor) throw new InflateError("invalid distance: too far back");
              const stop = out + length;
              if (distance === 1) {
                win.fill(win[from]!, out, stop);
                out = stop;
              } else if (distance >= length && length > 32) {
                win.copyWithin(out, from, from + length);
                out = stop;
              } else {
                while (out < stop) win[out++] = win[from++]!;
              }
            }
            // Drop the uncounted bits: the slow steps and readByte expect none.
            bits &= ~(-1 << count);
            if (ended) {
              state = S_BLOCK;
              break;
            }
          }
          // One step at a time: a literal, the end of the block, or a length with its extra bits.
          if (out === winEnd) {
            status = OUTPUT_FULL;
            break loop;
          }
          let e = lit[bits & LIT_MASK]!;
          if (e & K_SUB) e = lit[(e >>> 16) + ((bits >>> LIT_BITS) & ((1 << ((e >>> 4) & 15)) - 1))]!;
          const n = e & 15;
          const extra = (e >>> 4) & 15;
          // An invalid entry is only known to be one once a whole code's worth of bits is in.
          const need = (e & (K_LIT | K_MATCH | K_END)) === 0 ? 15 : e & K_MATCH ? n + extra : n;
          if (need > count) {
            if (at === inEnd) break loop;
            bits |= input[at++]! << count;
            count += 8;
            break;
          }
          bits >>>= n;
          count -= n;
          if (e & K_LIT) win[out++] = e >>> 16;
          else if (e & K_MATCH) {
            this.#left = (e >>> 16) + (bits & ((1 << extra) - 1));
            bits >>>= extra;
            count -= extra;
            state = S_DIST;
          } else if (e & K_END) state = S_BLOCK;
          else throw new InflateError("invalid literal/length code");
          break;
        }
        case S_DIST: {
          const dist = this.#dist.entries;
          let e = dist[bits & DIST_MASK]!;
          if (e & K_SUB) e = dist[(e >>> 16) + ((bits >>> DIST_BITS) & ((1 << ((e >>> 4) & 15)) - 1))]!;
          const n = e & K_MATCH ? e & 15 : 15;
          if (n > count) {
            if (at === inEnd) break loop;
            bits |= input[at++]! << count;
            count += 8;
            break;
          }
          if ((e & K_MATCH) === 0) throw new InflateError("invalid distance code");
          bits >>>= n;
          count -= n;
          this.#distance = e >>> 16;
          this.#extra = (e >>> 4) & 15;
          state = S_DIST_EXTRA;
          break;
        }
        case S_DIST_EXTRA: {
          const extra = this.#extra;
          while (count < extra) {
            if (at === inEnd) break loop;
            bits |= input[at++]! << count;
            count += 8;
          }
          const distance = this.#distance + (bits & ((1 << extra) - 1));
          bits >>>= extra;
          count -= extra;
          if (distance > out - floor) throw new InflateError("invalid distance: too far back");
          this.#distance = distance;
          state = S_COPY;
          break;
        }
        case S_COPY: {
          const left = this.#left;
          const n = Math.min(left, winEnd - out);
          let from = out - this.#distance;
          for (const stop = out + n; out < stop;) win[out++] = win[from++]!;
          if (n < left) {
            this.#left = left - n;
            status = OUTPUT_FULL;
            break loop;
          }
          state = S_CODES;
          break;
        }
        default:
          throw new TypeError(`Unexpected inflate state ${state}`);
      }
    }

    this.#state = state;
    this.#at = at;
    this.#bits = bits;
    this.#bitCount = count;
    this.#end = out;
    this.#reach = Math.min(WINDOW, out - floor);
    return status;
  }
}
