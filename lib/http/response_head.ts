import { ProtocolError } from "./errors.ts";
import { parseFieldLine } from "./field_line.ts";

/** A parsed response status line and header fields. */
export interface ResponseHead {
  /** The minor HTTP version: 0 for HTTP/1.0, 1 for HTTP/1.1. */
  readonly minorVersion: number;
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  /**
   * The value of each Content-Length field line, in order. `headers` joins repeated fields with ", ",
   * which would make "5, 5" in one line look like two lines of "5".
   */
  readonly contentLengths: readonly string[];
  /** The value of each Transfer-Encoding field line, in order. */
  readonly transferEncodings: readonly string[];
}

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: ([^\0]*))?$/;
const LF = 10, CR = 13;

/**
 * Parses a response head incrementally: feed it the bytes as they arrive, split anywhere.
 * Lines may end in CRLF or a bare LF; the head ends at an empty line. Field lines are checked as Go's
 * net/http checks them (token names, no control bytes in values), except that obsolete line folding
 * and a space in a field name are refused. The head is copied into the parser's own buffer, so the
 * caller may reuse its read buffer; the bytes after the head are left to the caller.
 */
export class ResponseHeadParser {
  readonly #max: number;
  readonly #limit: string;
  readonly #url: string;
  #buf: Uint8Array;
  #len = 0;
  // 0: inside a line; 1: just after LF (a line start); 2: after LF then CR.
  #state = 1;
  #head: ResponseHead | undefined;

  /**
   * `maxHeaderBytes` bounds the head, blank line included; `url` names the request in errors. After
   * interim (1xx) heads, `interim` says how many came and `used` how many bytes they took: all the
   * heads of one response share the one bound.
   */
  constructor(maxHeaderBytes: number, url: string, interim = 0, used = 0) {
    this.#max = maxHeaderBytes - used;
    this.#limit = interim === 0
      ? `the response head is larger than ${maxHeaderBytes} bytes`
      : `the response heads (${interim} interim 1xx and the final one) are larger than ${maxHeaderBytes} bytes together`;
    this.#url = url;
    this.#buf = new Uint8Array(Math.max(0, Math.min(1024, this.#max)));
  }

  /** Bytes of the head taken so far (all of it, once complete). */
  get length(): number {
    return this.#len;
  }

  /** The parsed head; throws if `push` has not returned a complete head yet. */
  get head(): ResponseHead {
    if (this.#head === undefined) throw new TypeError("The response head is not complete");
    return this.#head;
  }

  /**
   * Consumes bytes from `chunk`. Returns -1 when the head needs more bytes, otherwise the number of
   * bytes of `chunk` that belonged to the head (the rest is body).
   * @throws {ProtocolError} on a malformed or oversized head.
   */
  push(chunk: Uint8Array): number {
    if (this.#head !== undefined) throw new TypeError("The response head is already complete");
    let state = this.#state;
    let end = -1;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === LF) {
        if (state !== 0) {
          end = i + 1;
          break;
        }
        state = 1;
      } else if (b === CR && state === 1) state = 2;
      else state = 0; // CR CR at a line start begins a (malformed) line, not the end of the head
    }
    this.#state = state;
    const take = end === -1 ? chunk.length : end;
    if (this.#len + take > this.#max) {
      throw new ProtocolError(
        `Invalid response from ${this.#url}: ${this.#limit} (maxHeaderBytes)`,
        this.#url,
      );
    }
    this.#append(chunk, take);
    if (end === -1) return -1;
    this.#head = this.#parse();
    return end;
  }

  #append(chunk: Uint8Array, take: number): void {
    if (this.#len + take > this.#buf.length) {
      const grown = new Uint8Array(Math.min(this.#max, Math.max(this.#buf.length * 2, this.#len + take)));
      grown.set(this.#buf.subarray(0, this.#len));
      this.#buf = grown;
    }
    this.#buf.set(take === chunk.length ? chunk : chunk.subarray(0, take), this.#len);
    this.#len += take;
  }

  #parse(): ResponseHead {
    let text = "";
    for (let i = 0; i < this.#len; i++) text += String.fromCharCode(this.#buf[i]!);
    const lines = text.split("\n");
    const statusLine = stripCr(lines[0] ?? "");
    const m = STATUS_LINE.exec(statusLine);
    if (m === null) throw this.#error(`malformed status line ${JSON.stringify(statusLine.slice(0, 100))}`);
    const headers = new Headers();
    const contentLengths: string[] = [], transferEncodings: string[] = [];
    // The last two entries are the blank line and what follows its LF (empty).
    for (let i = 1; i < lines.length - 2; i++) {
      const field = parseFieldLine(stripCr(lines[i]!));
      if ("error" in field) throw this.#error(`header line ${i} ${field.error}`);
      headers.append(field.name, field.value);
      const lower = field.name.toLowerCase();
      if (lower === "content-length") contentLengths.push(field.value);
      else if (lower === "transfer-encoding") transferEncodings.push(field.value);
    }
    return {
      minorVersion: Number(m[1]),
      status: Number(m[2]),
      statusText: m[3] ?? "",
      headers,
      contentLengths,
      transferEncodings,
    };
  }

  #error(what: string): ProtocolError {
    return new ProtocolError(`Invalid response from ${this.#url}: ${what}`, this.#url);
  }
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
