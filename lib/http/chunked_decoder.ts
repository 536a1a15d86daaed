import { ProtocolError } from "./errors.ts";
import { parseFieldLine } from "./field_line.ts";

// Decoder states.
const S_LINE = 0; // a chunk-size line, up to its LF
const S_DATA = 1;
const S_DATA_CR = 2;
const S_DATA_LF = 3;
const S_TRAILER = 4; // a trailer line, up to its LF
const S_DONE = 5;

const CR = 13, LF = 10;
// A chunk-size or trailer line, CRLF included, and the whole trailer section: as Go's 4 KiB buffer.
const MAX_LINE_BYTES = 4096;
const MAX_TRAILER_BYTES = 4096;
// Overhead allowed per chunk beyond twice its data, and in all, before a sender is taken as hostile.
const OVERHEAD_PER_CHUNK = 16;
const MAX_EXCESS = 16 * 1024;

/**
 * A push decoder for the chunked transfer coding (RFC 9112 section 7.1), as strict as Go's net/http:
 * every line ends in CRLF (a bare LF is refused in chunked framing, RFC errata 7633), a chunk-size line
 * (extensions included) fits in 4096 bytes, chunk extensions are skipped, the size is 1 to 16 hex
 * digits, and the framing overhead may not exceed 16 bytes a chunk plus twice the data by more than
 * 16 KiB (so a sender cannot keep the client busy with extensions and no data). Trailer fields are
 * checked like header fields and skipped; the trailer section fits in 4096 bytes. Data is copied out,
 * so the caller may reuse its input buffer; one input chunk yields at most one output array.
 */
export class ChunkedDecoder {
  readonly #url: string;
  #state = S_LINE;
  // The current line's bytes (one character each), without its LF.
  #line = "";
  #remaining = 0;
  #excess = 0;
  #trailerBytes = 0;
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
   * @throws {ProtocolError} on an invalid chunk size, framing or trailer.
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
        case S_LINE:
        case S_TRAILER: {
          // Take the rest of the line at once.
          let end = i;
          while (end < n && input[end] !== LF) end++;
          const limit = state === S_LINE ? MAX_LINE_BYTES : MAX_TRAILER_BYTES - this.#trailerBytes;
          if (this.#line.length + (end - i) + (end < n ? 1 : 0) > limit) {
            throw this.#error(
              state === S_LINE ? "chunk size line is too long" : "trailer section is too long",
            );
          }
          for (let k = i; k < end; k++) this.#line += String.fromCharCode(input[k]!);
          i = end;
          if (end === n) break;
          i++; // the LF
          state = state === S_LINE ? this.#sizeLine() : this.#trailerLine();
          break;
        }
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
          if (b !== CR) throw this.#error("chunk data is not followed by CRLF");
          state = S_DATA_LF;
          i++;
          break;
        case S_DATA_LF:
          if (b !== LF) throw this.#error("chunk data is not followed by CRLF");
          state = S_LINE;
          i++;
          break;
      }
    }
    this.#state = state;
    this.#consumed = i;
    return total === 0 ? null : copyRuns(input, runs, total);
  }

  /** Ends a chunk-size line: the next state. */
  #sizeLine(): number {
    const line = this.#withoutCr("chunk size line");
    this.#excess += line.length + 2;
    let size = line.replace(/[ \t]+$/, "");
    const semicolon = size.indexOf(";");
    if (semicolon >= 0) size = size.slice(0, semicolon);
    if (!/^[0-9a-fA-F]{1,16}$/.test(size)) {
      throw this.#error(`invalid chunk size ${JSON.stringify(size.slice(0, 20))}`);
    }
    const value = parseInt(size, 16);
    if (value > Number.MAX_SAFE_INTEGER) throw this.#error("chunk size is too large");
    this.#excess = Math.max(0, this.#excess - OVERHEAD_PER_CHUNK - 2 * value);
    if (this.#excess > MAX_EXCESS) {
      throw this.#error("too much framing overhead (chunk extensions) for the data");
    }
    if (value === 0) return S_TRAILER;
    this.#remaining = value;
    return S_DATA;
  }

  /** Ends a trailer line: the next state. */
  #trailerLine(): number {
    this.#trailerBytes += this.#line.length + 1;
    const line = this.#withoutCr("trailer line");
    if (line === "") return S_DONE;
    const field = parseFieldLine(line);
    if ("error" in field) throw this.#error(`trailer line ${field.error}`);
    return S_TRAILER;
  }

  /** The current line without its CR, which must be there and be its only CR. */
  #withoutCr(what: string): string {
    const line = this.#line;
    this.#line = "";
    if (!line.endsWith("\r")) throw this.#error(`${what} is not terminated by CRLF`);
    if (line.indexOf("\r") !== line.length - 1) throw this.#error(`${what} holds a CR`);
    return line.slice(0, -1);
  }

  #error(what: string): ProtocolError {
    return new ProtocolError(`Invalid chunked response body from ${this.#url}: ${what}`, this.#url);
  }
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
