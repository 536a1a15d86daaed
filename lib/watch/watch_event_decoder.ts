import type { KubeObject } from "../client/types.ts";
import { WatchDecodeError } from "./watch_decode_error.ts";
import type { WatchEvent } from "./watch_event.ts";

/** Options of {@linkcode WatchEventDecoder} and `WatchDecoderStream`. */
export interface WatchDecoderOptions {
  /**
   * Longest accepted line in bytes; a longer one fails with a `WatchDecodeError` ("lineTooLong") as soon
   * as the limit is crossed, so a broken server cannot make us buffer without bound.
   * @default {16777216} (16 MiB; etcd's request limit is 1.5 MiB, so real events are far smaller)
   */
  readonly maxLineBytes?: number;
}

const NEWLINE = 10;
const EXCERPT_BYTES = 256;
const EXCERPT_CHARS = 200;

/**
 * The synchronous core of the watch decoder: feed it byte chunks split anywhere (also inside a
 * multi-byte UTF-8 character) and it calls `emit` once per complete event.
 *
 * Framing works on bytes: newlines are found with `Uint8Array.indexOf`; the complete lines of a chunk
 * are decoded with one `TextDecoder` call (a per-line call costs about as much as parsing a 1 KB line)
 * and only the unterminated tail of a chunk is copied and kept, so a chunk split inside a multi-byte
 * character is reassembled from bytes before decoding. Blank lines are skipped.
 * Every bad line throws a {@linkcode WatchDecodeError}; nothing is dropped silently.
 *
 * End of input (`end()`): an unterminated final line that parses as an event is accepted (a server
 * may close right after the last byte); one that does not parse throws with reason "truncated".
 */
export class WatchEventDecoder<T extends KubeObject = KubeObject> {
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #lineNumber = 0;
  readonly #maxLineBytes: number;
  readonly #text = new TextDecoder("utf-8", { fatal: true });

  /** Creates a decoder; throws RangeError for a bad `maxLineBytes`. */
  constructor(options: WatchDecoderOptions = {}) {
    const max = options.maxLineBytes ?? 16 * 1024 * 1024;
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(`Cannot create watch decoder: maxLineBytes must be a positive integer, got ${max}`);
    }
    this.#maxLineBytes = max;
  }

  /** Decodes the complete lines of `chunk`, calling `emit` for each event, and keeps the rest. */
  push(chunk: Uint8Array, emit: (event: WatchEvent<T>) => void): void {
    const first = chunk.indexOf(NEWLINE);
    if (first === -1) {
      this.#keep(chunk, 0);
      return;
    }
    this.#checkLength(this.#pendingBytes + first);
    const head = this.#pendingBytes > 0 ? this.#takePending(chunk.subarray(0, first)) : chunk.subarray(0, first);
    this.#decodeBytes(head, emit, false);
    const last = chunk.lastIndexOf(NEWLINE);
    if (last > first) this.#decodeRegion(chunk.subarray(first + 1, last), emit);
    if (last + 1 < chunk.length) this.#keep(chunk, last + 1);
  }

  /** Signals the end of input: decodes an unterminated final line (see the class notes). */
  end(emit: (event: WatchEvent<T>) => void): void {
    if (this.#pendingBytes === 0) return;
    const line = this.#takePending(new Uint8Array(0));
    this.#decodeBytes(line, emit, true);
  }

  /** Bytes held for an unterminated line. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  #keep(chunk: Uint8Array, start: number): void {
    const size = chunk.length - start;
    this.#checkLength(this.#pendingBytes + size);
    // Copy: the producer may reuse its buffer after we return.
    this.#pending.push(chunk.slice(start));
    this.#pendingBytes += size;
  }

  #takePending(last: Uint8Array): Uint8Array {
    const line = new Uint8Array(this.#pendingBytes + last.length);
    let at = 0;
    for (const part of this.#pending) {
      line.set(part, at);
      at += part.length;
    }
    line.set(last, at);
    this.#pending = [];
    this.#pendingBytes = 0;
    return line;
  }

  #checkLength(bytes: number): void {
    if (bytes <= this.#maxLineBytes) return;
    const excerpt = this.#pending[0] ? excerptOf(this.#pending[0]) : "";
    this.#pending = [];
    this.#pendingBytes = 0;
    throw new WatchDecodeError(
      "lineTooLong",
      this.#lineNumber + 1,
      `line is longer than maxLineBytes (${this.#maxLineBytes} bytes)`,
      { excerpt },
    );
  }

  /**
   * Complete lines separated by "\n" (no trailing newline). Fast path: one decode for the region and
   * string splitting, which costs far less than a decode call per line. The byte-exact slow path runs
   * when the region could hold an over-long line or is not valid UTF-8, to name the exact line.
   */
  #decodeRegion(region: Uint8Array, emit: (event: WatchEvent<T>) => void): void {
    let text: string | undefined;
    if (region.length <= this.#maxLineBytes) {
      try {
        text = this.#text.decode(region);
      } catch {
        text = undefined;
      }
    }
    if (text === undefined) {
      let start = 0;
      let newline: number;
      while ((newline = region.indexOf(NEWLINE, start)) !== -1) {
        this.#checkLength(newline - start);
        this.#decodeBytes(region.subarray(start, newline), emit, false);
        start = newline + 1;
      }
      this.#checkLength(region.length - start);
      this.#decodeBytes(region.subarray(start), emit, false);
      return;
    }
    let start = 0;
    let newline: number;
    while ((newline = text.indexOf("\n", start)) !== -1) {
      this.#decodeText(text.slice(start, newline), emit, false);
      start = newline + 1;
    }
    this.#decodeText(text.slice(start), emit, false);
  }

  #decodeBytes(bytes: Uint8Array, emit: (event: WatchEvent<T>) => void, final: boolean): void {
    let text: string;
    try {
      text = this.#text.decode(bytes);
    } catch (cause) {
      this.#lineNumber++;
      throw new WatchDecodeError("invalidJson", this.#lineNumber, "not valid UTF-8", {
        excerpt: excerptOf(bytes),
        cause,
      });
    }
    this.#decodeText(text, emit, final);
  }

  #decodeText(line: string, emit: (event: WatchEvent<T>) => void, final: boolean): void {
    this.#lineNumber++;
    if (line.length <= 2 && line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      const excerpt = line.slice(0, EXCERPT_CHARS);
      if (final) {
        throw new WatchDecodeError("truncated", this.#lineNumber, "stream ended inside an incomplete line", {
          excerpt,
          cause,
        });
      }
      throw new WatchDecodeError("invalidJson", this.#lineNumber, `not valid JSON (${(cause as Error).message})`, {
        excerpt,
        cause,
      });
    }
    const problem = eventProblem(value);
    if (problem !== undefined) {
      throw new WatchDecodeError("notAnEvent", this.#lineNumber, `not a watch event: ${problem}`, {
        excerpt: line.slice(0, EXCERPT_CHARS),
      });
    }
    emit(value as WatchEvent<T>);
  }
}

function excerptOf(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes.subarray(0, EXCERPT_BYTES));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Describes what keeps `value` from being a watch event, or undefined when it is one. */
function eventProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "not a JSON object";
  const { type, object } = value;
  if (typeof type !== "string") return `field "type" is missing`;
  if (!isObject(object)) return `field "object" is missing or not an object`;
  switch (type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED":
    case "BOOKMARK":
      return isObject(object.metadata) ? undefined : `field "object.metadata" is missing`;
    case "ERROR":
      return undefined;
    default:
      return `unknown type ${JSON.stringify(type.slice(0, 40))}`;
  }
}
