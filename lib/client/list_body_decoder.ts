/**
 * Decodes a list body (`{"kind": …, "metadata": {…}, "items": [{…}, …]}`) item by item as its bytes
 * arrive, so that a large list never exists as one string: each chunk is decoded to text once, and
 * each item's text is parsed on its own and dropped. `JSON.parse` of the whole body held the body's
 * bytes, their copy, the text and the objects at once (bench/RESULTS.md, "List bodies item by item").
 *
 * The scanner only finds where each top-level value and each item ends (strings, escapes, nesting);
 * `JSON.parse` still decodes and validates every piece, so the result, and whether there is one, is
 * what `JSON.parse` of the whole decoded text gives (a repeated key keeps its last value there too).
 * @module
 */

const enum Phase {
  /** Before the opening `{`. */
  Start,
  /** Before a key, or the `}` of an empty object. */
  Key,
  Colon,
  Value,
  AfterValue,
  /** Inside `items`, before an element or (first only) the closing `]`. */
  Item,
  AfterItem,
  Done,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Bytes that cannot be the JSON object they should be; the caller names the request. */
export class ListBodyError extends SyntaxError {
  override readonly name = "ListBodyError";
}

/**
 * Incremental decoder of one JSON object whose `items` array is decoded element by element; each item
 * goes through `transformItem` (when given) as soon as it is parsed, and only its result is kept.
 */
export class ListBodyDecoder {
  readonly #transformItem: ((item: unknown) => unknown) | undefined;
  #phase = Phase.Start;
  /** The key whose value comes next. */
  #key = "";
  readonly #fields: Record<string, unknown> = {};
  #items: unknown[] | undefined;

  // The key or value being read: its text so far when it spans chunks, and the scanner's state.
  #reading: "key" | "value" | "item" | undefined;
  #parts: string[] = [];
  #typed = false;
  #scalar = false;
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** The next backslash of `#slashChunk` at or after the scan position (its length: none). */
  #slashAt = 0;
  #slashChunk: string | undefined;
  // Each chunk is decoded to text once (a split UTF-8 sequence waits for the next chunk), and the
  // pieces are cut from that text: one decode per chunk rather than one per item.
  readonly #utf8 = new TextDecoder();

  constructor(transformItem?: (item: unknown) => unknown) {
    this.#transformItem = transformItem;
  }

  /** Decodes `bytes`; they are not kept, so the caller may reuse the buffer. */
  push(bytes: Uint8Array): void {
    this.#take(this.#utf8.decode(bytes, { stream: true }));
  }

  #take(chunk: string): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.#reading !== undefined) {
        const end = this.#scan(chunk, i);
        if (end < 0) {
          this.#parts.push(chunk.slice(i));
          return;
        }
        this.#finish(chunk.slice(i, end));
        i = end;
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
        continue;
      }
      switch (this.#phase) {
        case Phase.Start:
          this.#expect(c === 0x7b, "{");
          this.#phase = Phase.Key;
          i++;
          break;
        case Phase.Key:
          if (c === 0x7d && Object.keys(this.#fields).length === 0 && this.#items === undefined) {
            this.#phase = Phase.Done;
          } else {
            this.#expect(c === QUOTE, "a key");
            this.#begin("key"); // after the opening quote
          }
          i++;
          break;
        case Phase.Colon:
          this.#expect(c === 0x3a, ":");
          this.#phase = Phase.Value;
          i++;
          break;
        case Phase.Value:
          if (this.#key === "items" && c === 0x5b) {
            this.#items = [];
            delete this.#fields["items"];
            this.#phase = Phase.Item;
            i++;
          } else {
            this.#begin("value");
          }
          break;
        case Phase.AfterValue:
          if (c === 0x2c) this.#phase = Phase.Key;
          else if (c === 0x7d) this.#phase = Phase.Done;
          else this.#fail(", or }");
          i++;
          break;
        case Phase.Item:
          if (c === 0x5d && this.#items!.length === 0) {
            this.#phase = Phase.AfterValue;
            i++;
          } else {
            this.#begin("item");
          }
          break;
        case Phase.AfterItem:
          if (c === 0x2c) this.#phase = Phase.Item;
          else if (c === 0x5d) this.#phase = Phase.AfterValue;
          else this.#fail(", or ]");
          i++;
          break;
        case Phase.Done:
          this.#fail("nothing after the object");
      }
    }
  }

  /**
   * The decoded object, once the body has ended.
   * @throws {ListBodyError} when the body ended before the object did.
   */
  end(): Record<string, unknown> {
    this.#take(this.#utf8.decode());
    if (this.#reading !== undefined || this.#phase !== Phase.Done) {
      throw new ListBodyError("the list body ended before its JSON object did");
    }
    return this.#items === undefined ? { ...this.#fields } : { ...this.#fields, items: this.#items };
  }

  #begin(what: "key" | "value" | "item"): void {
    this.#reading = what;
    this.#parts = [];
    this.#typed = what === "key";
    this.#inString = what === "key";
    this.#scalar = false;
    this.#depth = 0;
    this.#escaped = false;
  }

  /**
   * Scans the key or value being read from `at`: the index just after its last character, or -1 when it
   * goes on past this chunk. Strings, where nearly all the text is, are skipped with `indexOf`.
   */
  #scan(chunk: string, at: number): number {
    let i = at;
    const n = chunk.length;
    if (!this.#typed) {
      this.#typed = true;
      const c = chunk.charCodeAt(i);
      if (c === QUOTE) {
        this.#inString = true;
        i++;
      } else if (c === 0x7b || c === 0x5b) {
        this.#depth = 1;
        i++;
      } else {
        this.#scalar = true; // a number, true, false or null: it ends at the next delimiter
      }
    }
    while (i < n) {
      if (this.#inString) {
        if (this.#escaped) {
          this.#escaped = false;
          i++;
          continue;
        }
        const quote = chunk.indexOf('"', i);
        if (quote < 0) {
          this.#escaped = endsInEscape(chunk, i);
          return -1;
        }
        const slash = this.#nextSlash(chunk, i);
        if (slash < quote) {
          this.#escaped = true;
          i = slash + 1;
          continue;
        }
        this.#inString = false;
        i = quote + 1;
        if (this.#depth === 0) return i; // a key, or a string value
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (this.#scalar) {
        if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
          return i;
        }
        i++;
        continue;
      }
      i++;
      if (c === QUOTE) this.#inString = true;
      else if (c === 0x7b || c === 0x5b) this.#depth++;
      else if ((c === 0x7d || c === 0x5d) && --this.#depth === 0) return i;
    }
    return -1;
  }

  /** The index of the next backslash in `chunk` at or after `from` (`chunk.length`: none). */
  #nextSlash(chunk: string, from: number): number {
    if (this.#slashChunk !== chunk || this.#slashAt < from) {
      const at = chunk.indexOf("\\", from);
      this.#slashAt = at < 0 ? chunk.length : at;
      this.#slashChunk = chunk;
    }
    return this.#slashAt;
  }

  /** The key or value being read ends with `tail`. */
  #finish(tail: string): void {
    const what = this.#reading;
    this.#reading = undefined;
    const text = this.#parts.length === 0 ? tail : this.#parts.join("") + tail;
    this.#parts = [];
    if (what === "key") {
      // The text runs up to and including the closing quote; the opening one came before.
      this.#key = parse('"' + text) as string;
      this.#phase = Phase.Colon;
      return;
    }
    const value = parse(text);
    if (what === "item") {
      this.#items!.push(this.#transformItem === undefined ? value : this.#transformItem(value));
      this.#phase = Phase.AfterItem;
      return;
    }
    if (this.#key === "items") this.#items = undefined; // a later `items` that is not an array wins
    // defineProperty: a `__proto__` key is data in JSON.parse's result too, not the prototype.
    Object.defineProperty(this.#fields, this.#key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    this.#phase = Phase.AfterValue;
  }

  #expect(ok: boolean, what: string): void {
    if (!ok) this.#fail(what);
  }

  #fail(what: string): never {
    throw new ListBodyError(`expected ${what} in the list body`);
  }
}

/**
 * Whether `chunk` ends inside an escape, given that string content from `from` on has not been
 * scanned and `from` is not inside one. With no quote left in the chunk, every backslash there starts
 * or ends an escape, so the parity of the trailing run of backslashes decides.
 */
function endsInEscape(chunk: string, from: number): boolean {
  let run = 0;
  for (let j = chunk.length - 1; j >= from && chunk.charCodeAt(j) === BACKSLASH; j--) run++;
  return run % 2 === 1;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ListBodyError("a value in the list body is not valid JSON", { cause });
  }
}
