/**
 * The public key of an issuing certificate for WebCrypto, private to _signature.ts: its
 * SubjectPublicKeyInfo (RFC 5280, 3279, 4055, 5480, 8410) is read by our own DER reader, which
 * decides the key's type, and it is imported once per certificate and algorithm.
 * @module
 */
import type { Certificate } from "./certificate.ts";
import { DerReader, encoding, readBitString, readOid, Tag } from "./der_reader.ts";
import { EC_PUBLIC_KEY, ED25519, NAMED_CURVES, RSA_ENCRYPTION } from "./key_algorithms.ts";

/** What the signature check needs to know about a key before importing it. */
export type PublicKey =
  | { readonly type: "rsa" }
  /** An id-RSASSA-PSS key: RSA-PSS only, within `parameters` (RSASSA-PSS-params, DER) if present. */
  | { readonly type: "rsa-pss"; readonly parameters: Uint8Array | undefined }
  /** `curve`: the WebCrypto name (P-256, P-384, P-521), else the named curve's OID. */
  | { readonly type: "ec"; readonly curve: string }
  | { readonly type: "ed25519" }
  /** Any other algorithm, by OID: no signature this check accepts can be made with it. */
  | { readonly type: "other"; readonly oid: string };

/** WebCrypto's import parameters for one use of a key. */
export type ImportAlgorithm = RsaHashedImportParams | EcKeyImportParams | { readonly name: "Ed25519" };

const RSASSA_PSS = "1.2.840.113549.1.1.10";
// DER of AlgorithmIdentifier { rsaEncryption, NULL }.
const RSA_ENCRYPTION_ALGORITHM = [48, 13, 6, 9, 42, 134, 72, 134, 247, 13, 1, 1, 1, 5, 0];

interface Entry {
  readonly key: PublicKey | undefined;
  /** The SubjectPublicKeyInfo to import: the certificate's, or an RSA-PSS key's under rsaEncryption. */
  readonly spki: Uint8Array;
  readonly imported: Map<string, Promise<CryptoKey | undefined>>;
}

const entries = new WeakMap<Certificate, Entry>();

/** The type of `cert`'s key; undefined when its SubjectPublicKeyInfo is malformed. */
export function publicKeyOf(cert: Certificate): PublicKey | undefined {
  return entryOf(cert).key;
}

/**
 * `cert`'s key imported for `algorithm` (once: later calls share the result); undefined when
 * WebCrypto refuses the key, e.g. an RSA modulus or an EC point that is not one.
 */
export function importedKey(cert: Certificate, algorithm: ImportAlgorithm): Promise<CryptoKey | undefined> {
  const entry = entryOf(cert);
  const id = JSON.stringify(algorithm);
  let key = entry.imported.get(id);
  if (key === undefined) {
    key = crypto.subtle.importKey("spki", new Uint8Array(entry.spki), algorithm, false, ["verify"]).catch(
      (err) => {
        if (err instanceof DOMException) return undefined;
        throw err;
      },
    );
    entry.imported.set(id, key);
  }
  return key;
}

function entryOf(cert: Certificate): Entry {
  let entry = entries.get(cert);
  if (entry === undefined) {
    entry = { ...read(cert.spki), imported: new Map() };
    entries.set(cert, entry);
  }
  return entry;
}

function read(spki: Uint8Array): { key: PublicKey | undefined; spki: Uint8Array } {
  try {
    const top = new DerReader(spki);
    const info = DerReader.inside(spki, top.next(Tag.SEQUENCE));
    top.finish("the public key");
    const alg = DerReader.inside(spki, info.next(Tag.SEQUENCE));
    const bitString = info.next(Tag.BIT_STRING);
    info.finish("the public key");
    if (readBitString(spki, bitString).unused !== 0) throw new SyntaxError("public key is not whole bytes");
    const oid = readOid(spki, alg.next(Tag.OID));
    let key: PublicKey;
    let imported = spki;
    if (oid === RSA_ENCRYPTION) {
      if (!alg.done) alg.next(Tag.NULL);
      key = { type: "rsa" };
    } else if (oid === RSASSA_PSS) {
      const parameters = alg.done ? undefined : encoding(spki, alg.next(Tag.SEQUENCE));
      key = { type: "rsa-pss", parameters };
      // WebCrypto imports RSA keys only under rsaEncryption; the key itself is the same RSAPublicKey.
      imported = sequence([...RSA_ENCRYPTION_ALGORITHM, ...encoding(spki, bitString)]);
    } else if (oid === EC_PUBLIC_KEY) {
      // Only a named curve: RFC 5480 forbids explicit curve parameters in certificates.
      const curve = readOid(spki, alg.next(Tag.OID));
      key = { type: "ec", curve: NAMED_CURVES.get(curve) ?? curve };
    } else if (oid === ED25519) {
      key = { type: "ed25519" };
    } else {
      key = { type: "other", oid };
      while (!alg.done) alg.next();
    }
    alg.finish("the public key's algorithm");
    return { key, spki: imported };
  } catch (err) {
    if (err instanceof SyntaxError) return { key: undefined, spki };
    throw err;
  }
}

/** A DER SEQUENCE around `body`. */
function sequence(body: readonly number[]): Uint8Array {
  const length: number[] = [];
  for (let n = body.length; n > 0; n = Math.floor(n / 256)) length.unshift(n % 256);
  const header = body.length < 0x80 ? [0x30, body.length] : [0x30, 0x80 | length.length, ...length];
  return new Uint8Array([...header, ...body]);
}
