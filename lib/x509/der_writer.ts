/**
 * A minimal DER (ASN.1 Distinguished Encoding Rules) writer: just the types an X.509 certificate needs.
 * Each function returns the complete encoding (tag, length, contents), so values nest by concatenation.
 * @module
 */

/** One encoded value (tag, length and contents). */
export type Der = Uint8Array<ArrayBuffer>;

function concat(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Definite-length form: short below 128, else 0x80|count followed by the big-endian length. */
function lengthBytes(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

/** A value with tag `tag` and the given contents. */
export function tlv(tag: number, ...contents: readonly Uint8Array[]): Der {
  const body = concat(contents);
  return concat([Uint8Array.of(tag, ...lengthBytes(body.length)), body]);
}

/** SEQUENCE of the given values. */
export function sequence(...items: readonly Der[]): Der {
  return tlv(0x30, ...items);
}

/** SET OF the given values; DER orders the encodings. */
export function set(...items: readonly Der[]): Der {
  const sorted = [...items].sort(compareBytes);
  return tlv(0x31, ...sorted);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/** BOOLEAN. */
export function boolean(value: boolean): Der {
  return tlv(0x01, Uint8Array.of(value ? 0xff : 0x00));
}

/**
 * INTEGER from unsigned big-endian magnitude bytes: leading zeros are dropped, and one 0x00 is added when
 * the top bit is set, so the value stays non-negative.
 */
export function unsignedInteger(magnitude: Uint8Array): Der {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const needsPad = trimmed.length === 0 || (trimmed[0]! & 0x80) !== 0;
  return tlv(0x02, needsPad ? concat([Uint8Array.of(0), trimmed]) : trimmed);
}

/** INTEGER of a small non-negative number. */
export function smallInteger(value: number): Der {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`Not a small integer: ${value}`);
  const bytes: number[] = [];
  for (let n = value; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return unsignedInteger(Uint8Array.from(bytes));
}

/** OBJECT IDENTIFIER from its dotted form, e.g. "2.5.4.3". */
export function oid(dotted: string): Der {
  const arcs = dotted.split(".").map((a) => {
    if (!/^\d+$/.test(a)) throw new TypeError(`Invalid object identifier "${dotted}"`);
    return Number(a);
  });
  const [first, second, ...rest] = arcs;
  if (first === undefined || second === undefined || first > 2) {
    throw new TypeError(`Invalid object identifier "${dotted}"`);
  }
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const base128: number[] = [arc & 0x7f];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) base128.unshift(0x80 | (n & 0x7f));
    bytes.push(...base128);
  }
  return tlv(0x06, Uint8Array.from(bytes));
}

/** UTF8String. */
export function utf8String(text: string): Der {
  return tlv(0x0c, new TextEncoder().encode(text));
}

/** OCTET STRING. */
export function octetString(bytes: Uint8Array): Der {
  return tlv(0x04, bytes);
}

/** BIT STRING of whole bytes (no unused bits). */
export function bitString(bytes: Uint8Array): Der {
  return tlv(0x03, Uint8Array.of(0), bytes);
}

/** NULL. */
export function nullValue(): Der {
  return Uint8Array.of(0x05, 0x00);
}

/**
 * An X.509 Time: UTCTime (YYMMDDHHMMSSZ) for years 1950-2049, GeneralizedTime (YYYYMMDDHHMMSSZ) otherwise,
 * as RFC 5280 section 4.1.2.5 requires. Milliseconds are dropped.
 */
export function time(date: Date): Der {
  const iso = date.toISOString(); // 2026-12-01T10:20:30.000Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, "");
  const year = date.getUTCFullYear();
  if (year >= 1950 && year < 2050) return tlv(0x17, new TextEncoder().encode(`${digits.slice(2)}Z`));
  return tlv(0x18, new TextEncoder().encode(`${digits}Z`));
}

/** A context-specific EXPLICIT tag [n] around a value. */
export function explicit(n: number, value: Der): Der {
  return tlv(0xa0 | n, value);
}

/** A context-specific IMPLICIT primitive tag [n] with raw contents (e.g. a GeneralName). */
export function implicitPrimitive(n: number, contents: Uint8Array): Der {
  return tlv(0x80 | n, contents);
}
