/**
 * A strict reader of DER (the encoding of X.509 certificates), private to the certificate checks.
 * It accepts only what DER allows: one-byte tags, definite and minimal lengths, and elements that
 * lie wholly inside their parent. Anything else throws a SyntaxError, so a malformed certificate is
 * refused rather than read one way here and another way elsewhere.
 * @module
 */

/** One element: its tag byte and where its header and contents are in the input. */
export interface Element {
  readonly tag: number;
  /** Offset of the tag byte. */
  readonly start: number;
  /** Offset of the first contents byte. */
  readonly contentStart: number;
  /** Offset just past the contents. */
  readonly end: number;
}

/** Reads the elements between two offsets of `bytes`, one after another. */
export class DerReader {
  readonly bytes: Uint8Array;
  #at: number;
  readonly #end: number;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.#at = start;
    this.#end = end;
  }

  /** A reader over the contents of `element`. */
  static inside(bytes: Uint8Array, element: Element): DerReader {
    return new DerReader(bytes, element.contentStart, element.end);
  }

  /** True when every element has been read. */
  get done(): boolean {
    return this.#at >= this.#end;
  }

  /** The tag of the next element, or -1 at the end. */
  peekTag(): number {
    return this.done ? -1 : this.bytes[this.#at]!;
  }

  /** Reads the next element; with `tag`, it must have that tag. */
  next(tag?: number): Element {
    const b = this.bytes;
    const start = this.#at;
    if (start + 2 > this.#end) throw new SyntaxError("DER: truncated element");
    const t = b[start]!;
    if ((t & 0x1f) === 0x1f) throw new SyntaxError("DER: multi-byte tags are not used in certificates");
    if (tag !== undefined && t !== tag) {
      throw new SyntaxError(`DER: expected tag 0x${hex(tag)}, found 0x${hex(t)}`);
    }
    let length = b[start + 1]!;
    let contentStart = start + 2;
    if (length & 0x80) {
      const count = length & 0x7f;
      if (count === 0) throw new SyntaxError("DER: indefinite length");
      if (count > 4) throw new SyntaxError("DER: length too large");
      if (contentStart + count > this.#end) throw new SyntaxError("DER: truncated length");
      if (b[contentStart] === 0) throw new SyntaxError("DER: non-minimal length");
      length = 0;
      for (let i = 0; i < count; i++) length = length * 256 + b[contentStart + i]!;
      if (length < 0x80) throw new SyntaxError("DER: non-minimal length");
      contentStart += count;
    }
    const end = contentStart + length;
    if (end > this.#end) throw new SyntaxError("DER: element runs past its parent");
    this.#at = end;
    return { tag: t, start, contentStart, end };
  }

  /** Throws unless every element has been read. */
  finish(what: string): void {
    if (!this.done) throw new SyntaxError(`DER: unexpected data after ${what}`);
  }
}

/** Tags of the universal types certificates use. */
export const Tag = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
} as const;

/** The contents of `element`. */
export function contents(bytes: Uint8Array, element: Element): Uint8Array {
  return bytes.subarray(element.contentStart, element.end);
}

/** The whole encoding of `element`, header included. */
export function encoding(bytes: Uint8Array, element: Element): Uint8Array {
  return bytes.subarray(element.start, element.end);
}

/** A DER BOOLEAN (0x00 or 0xFF only). */
export function readBoolean(bytes: Uint8Array, element: Element): boolean {
  const v = contents(bytes, element);
  if (v.length !== 1 || (v[0] !== 0 && v[0] !== 0xff)) throw new SyntaxError("DER: invalid BOOLEAN");
  return v[0] === 0xff;
}

/** A small non-negative INTEGER (up to 2^31). */
export function readSmallInteger(bytes: Uint8Array, element: Element): number {
  const v = contents(bytes, element);
  if (v.length === 0 || v.length > 4 || (v[0]! & 0x80) !== 0) {
    throw new SyntaxError("DER: INTEGER out of range");
  }
  if (v.length > 1 && v[0] === 0 && (v[1]! & 0x80) === 0) throw new SyntaxError("DER: non-minimal INTEGER");
  let n = 0;
  for (const byte of v) n = n * 256 + byte;
  return n;
}

/** An OBJECT IDENTIFIER in dotted form, e.g. "2.5.29.17". */
export function readOid(bytes: Uint8Array, element: Element): string {
  const v = contents(bytes, element);
  if (v.length === 0 || (v[v.length - 1]! & 0x80) !== 0) throw new SyntaxError("DER: invalid OID");
  const arcs: number[] = [];
  let value = 0;
  let first = true;
  for (let i = 0; i < v.length; i++) {
    const byte = v[i]!;
    if (value === 0 && byte === 0x80) throw new SyntaxError("DER: non-minimal OID arc");
    value = value * 128 + (byte & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER / 128) throw new SyntaxError("DER: OID arc too large");
    if (byte & 0x80) continue;
    if (first) {
      const top = value < 40 ? 0 : value < 80 ? 1 : 2;
      arcs.push(top, value - top * 40);
      first = false;
    } else {
      arcs.push(value);
    }
    value = 0;
  }
  return arcs.join(".");
}

/** A BIT STRING's bytes and how many trailing bits of the last byte are unused. */
export function readBitString(bytes: Uint8Array, element: Element): { bits: Uint8Array; unused: number } {
  const v = contents(bytes, element);
  if (v.length === 0 || v[0]! > 7 || (v.length === 1 && v[0] !== 0)) {
    throw new SyntaxError("DER: invalid BIT STRING");
  }
  return { bits: v.subarray(1), unused: v[0]! };
}

/** A UTCTime or GeneralizedTime as milliseconds since the epoch (the RFC 5280 forms, in UTC). */
export function readTime(bytes: Uint8Array, element: Element): number {
  const text = new TextDecoder().decode(contents(bytes, element));
  const match = element.tag === Tag.UTC_TIME
    ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
    : element.tag === Tag.GENERALIZED_TIME
    ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
    : null;
  if (match === null) throw new SyntaxError("DER: invalid time");
  let year = Number(match[1]);
  if (element.tag === Tag.UTC_TIME) year += year < 50 ? 2000 : 1900;
  const [month, day, hour, minute, second] = match.slice(2).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(ms);
  if (
    check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59
  ) {
    throw new SyntaxError("DER: invalid time");
  }
  return ms;
}

/** True when two byte ranges hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function hex(n: number): string {
  return n.toString(16).padStart(2, "0");
}
