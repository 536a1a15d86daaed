import { ProtocolError } from "./errors.ts";

// Decoder states.
const S_SIZE = 0;
const S_SIZE_AFTER = 1;
const S_EXT = 2;
const S_SIZE_LF = 3;
const S_DATA = 4;
const S_DATA_CR = 5;
const S_DATA_LF = 6;
const S_TRAILER_START = 7;
const S_TRAILER_LINE = 8;
const S_TRAILER_LF = 9;
const S_DONE = 10;

const CR = 13, LF = 10;
// 2^53 - 1 has 14 hex digits; anything longer cannot be a real chunk.
const MAX_SIZE_DIGITS = 13;

/**
 * A push decoder for the chunked transfer coding. It tolerates chunk extensions (skipped) and
 * trailer fields (skipped), and accepts a bare LF where CRLF is expected. Data is copied out, so
 * the caller may reuse its input buffer; one input chunk yields at most one output array.
 */
export class ChunkedDecoder {
  readonly #url: string;
  #state = S_SIZE;
  #size = 0;
  #digits = 0;
  #remaining = 0;
  #consumed = 0;
  // Reused [start, end, start, end, ...] offsets of the data runs found in one input.
  readonly #runs: number[] = [];

  /** `url` names the request in error messages. */
  constructor(url: string) {
    this.#url = url;
  }

  /** True once the last chunk and the trailer section have been read. */
  get done(): boolean {
    return this.#state === S_DONE;
  }

  /** How many bytes of the last input were consumed; less than its length only once `done`. */
  get consumed(): number {
    return this.#consumed;
  }

  /**
   * Decodes `input` and returns the body data it contained (a fresh array), or null if none.
   * @throws {ProtocolError} on an invalid chunk size or framing.
   */
  decode(input: Uint8Array): Uint8Array | null {
    const runs = this.#runs;
    runs.length = 0;
    let total = 0;
    let i = 0;
    const n = input.length;
    let state = this.#state;
    while (i < n && state !== S_DONE) {
      const b = input[i]!;
      switch (state) {
        case S_SIZE: {
          const v = hexValue(b);
          if (v >= 0) {
            if (++this.#digits > MAX_SIZE_DIGITS) throw this.#error("chunk size is too large");
            this.#size = this.#size * 16 + v;
            i++;
          } else if (this.#digits === 0) {
            throw this.#error(`invalid chunk size: unexpected byte 0x${b.toString(16).padStart(2, "0")}`);
          } else {
            state = S_SIZE_AFTER;
          }
          break;
        }
        case S_SIZE_AFTER:
          if (b === CR) state = S_SIZE_LF;
          else if (b === LF) state = this.#startChunk();
          else if (b === 0x3b /* ; */ || b === 0x20 || b === 0x09) state = S_EXT;
          else throw this.#error(`invalid chunk size: unexpected byte 0x${b.toString(16).padStart(2, "0")}`);
          i++;
          break;
        case S_EXT:
          if (b === CR) state = S_SIZE_LF;
          else if (b === LF) state = this.#startChunk();
          i++;
          break;
        case S_SIZE_LF:
          if (b !== LF) throw this.#error("chunk size line is not terminated by CRLF");
          state = this.#startChunk();
          i++;
          break;
        case S_DATA: {
          const take = Math.min(this.#remaining, n - i);
          runs.push(i, i + take);
          total += take;
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) state = S_DATA_CR;
          break;
        }
        case S_DATA_CR:
          if (b === CR) state = S_DATA_LF;
          else if (b === LF) state = S_SIZE;
          else throw this.#error("chunk data is not followed by CRLF");
          i++;
          break;
        case S_DATA_LF:
          if (b !== LF) throw this.#error("chunk data is not followed by CRLF");
          state = S_SIZE;
          i++;
          break;
        case S_TRAILER_START:
          if (b === CR) state = S_TRAILER_LF;
          else if (b === LF) state = S_DONE;
          else state = S_TRAILER_LINE;
          i++;
          break;
        case S_TRAILER_LINE:
          if (b === LF) state = S_TRAILER_START;
          i++;
          break;
        case S_TRAILER_LF:
          // CR at a line start then LF ends the trailers; CR then anything else is a trailer line.
          state = b === LF ? S_DONE : S_TRAILER_LINE;
          i++;
          break;
      }
    }
    this.#state = state;
    this.#consumed = i;
    return total === 0 ? null : copyRuns(input, runs, total);
  }

  /** Ends the chunk-size line: a zero size starts the trailers. */
  #startChunk(): number {
    const size = this.#size;
    this.#size = 0;
    this.#digits = 0;
    if (size === 0) return S_TRAILER_START;
    this.#remaining = size;
    return S_DATA;
  }

  #error(what: string): ProtocolError {
    return new ProtocolError(`Invalid chunked response body from ${this.#url}: ${what}`, this.#url);
  }
}

function hexValue(b: number): number {
  if (b >= 48 && b <= 57) return b - 48;
  if (b >= 97 && b <= 102) return b - 87;
  if (b >= 65 && b <= 70) return b - 55;
  return -1;
}

function copyRuns(input: Uint8Array, runs: number[], total: number): Uint8Array {
  if (runs.length === 2) return input.slice(runs[0], runs[1]);
  const out = new Uint8Array(total);
  let at = 0;
  for (let r = 0; r < runs.length; r += 2) {
    const part = input.subarray(runs[r], runs[r + 1]);
    out.set(part, at);
    at += part.length;
  }
  return out;
}
