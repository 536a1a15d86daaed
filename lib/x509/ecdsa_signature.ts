/**
 * ECDSA signatures as X.509 carries them (DER `SEQUENCE { r INTEGER, s INTEGER }`, RFC 3279) turned
 * into the fixed-size r‖s that WebCrypto verifies, private to _signature.ts. Strict: one encoding is
 * accepted per signature, as a DER-checking verifier (OpenSSL, Go) accepts.
 * @module
 */
import { contents, DerReader, Tag } from "./der_reader.ts";

/**
 * r‖s, each left-padded to `size` bytes (32, 48 or 66 for P-256, P-384, P-521); undefined unless
 * `der` is exactly one DER SEQUENCE of two minimal, positive INTEGERs of at most `size` bytes.
 */
export function rawEcdsaSignature(der: Uint8Array, size: number): Uint8Array | undefined {
  const raw = new Uint8Array(2 * size);
  try {
    const top = new DerReader(der);
    const sequence = DerReader.inside(der, top.next(Tag.SEQUENCE));
    top.finish("the ECDSA signature");
    for (const offset of [0, size]) {
      const value = magnitude(contents(der, sequence.next(Tag.INTEGER)));
      if (value === undefined || value.length > size) return undefined;
      raw.set(value, offset + size - value.length);
    }
    sequence.finish("the ECDSA signature's s");
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
  return raw;
}

/** The big-endian magnitude of a minimal DER INTEGER above zero; undefined for any other. */
function magnitude(v: Uint8Array): Uint8Array | undefined {
  if (v.length === 0 || (v[0]! & 0x80) !== 0) return undefined;
  if (v[0] !== 0) return v;
  // A leading 0x00 is there only to keep a high bit from reading as a sign (zero is no signature).
  if (v.length === 1 || (v[1]! & 0x80) === 0) return undefined;
  return v.subarray(1);
}
