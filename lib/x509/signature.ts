/**
 * Checks that a certificate was signed by the key of another, with WebCrypto over the signed bytes
 * our own parser found. Accepted algorithms are the ones Kubernetes PKI uses and Go accepts: RSA
 * PKCS#1 v1.5 and RSA-PSS with SHA-256/384/512, ECDSA with SHA-256/384/512 on P-256, P-384 and
 * P-521 (any hash with any of these curves), and Ed25519. SHA-1, other curves and anything else are
 * refused.
 * @module
 */
import type { Certificate } from "./certificate.ts";
import { ED25519 } from "./key_algorithms.ts";
import { contents, DerReader, type Element, readOid, readSmallInteger, Tag } from "./der_reader.ts";
import { type ImportAlgorithm, importedKey, publicKeyOf } from "./public_key.ts";
import { rawEcdsaSignature } from "./ecdsa_signature.ts";

/** The certificate uses a signature algorithm this check does not accept. */
export class UnsupportedAlgorithmError extends Error {
  constructor(what: string) {
    super(`unsupported signature algorithm ${what}`);
    this.name = "UnsupportedAlgorithmError";
  }
}

const HASHES: ReadonlyMap<string, string> = new Map([
  ["2.16.840.1.101.3.4.2.1", "SHA-256"],
  ["2.16.840.1.101.3.4.2.2", "SHA-384"],
  ["2.16.840.1.101.3.4.2.3", "SHA-512"],
]);
const RSA_PKCS1: ReadonlyMap<string, string> = new Map([
  ["1.2.840.113549.1.1.11", "SHA-256"],
  ["1.2.840.113549.1.1.12", "SHA-384"],
  ["1.2.840.113549.1.1.13", "SHA-512"],
]);
const ECDSA: ReadonlyMap<string, string> = new Map([
  ["1.2.840.10045.4.3.2", "SHA-256"],
  ["1.2.840.10045.4.3.3", "SHA-384"],
  ["1.2.840.10045.4.3.4", "SHA-512"],
]);
const RSA_PSS = "1.2.840.113549.1.1.10";
const MGF1 = "1.2.840.113549.1.1.8";
// Bytes of r and of s in WebCrypto's ECDSA signatures.
const CURVE_SIZES: ReadonlyMap<string, number> = new Map([["P-256", 32], ["P-384", 48], ["P-521", 66]]);

/**
 * True when `issuer`'s key made `cert`'s signature; false too when the key is malformed or of a type
 * that cannot make such a signature.
 * @throws {UnsupportedAlgorithmError} for an algorithm outside the list above, or ECDSA with a key on
 *   another curve.
 * @throws {SyntaxError} when the signature algorithm is malformed.
 */
export async function signedBy(cert: Certificate, issuer: Certificate): Promise<boolean> {
  const key = publicKeyOf(issuer);
  if (key === undefined) return false;
  const der = cert.signatureAlgorithm;
  const alg = DerReader.inside(der, new DerReader(der).next(Tag.SEQUENCE));
  const oid = readOid(der, alg.next(Tag.OID));
  const rsaHash = RSA_PKCS1.get(oid);
  if (rsaHash !== undefined) {
    if (!alg.done) alg.next(Tag.NULL);
    alg.finish("the algorithm parameters");
    if (key.type !== "rsa") return false;
    const algorithm = { name: "RSASSA-PKCS1-v1_5", hash: rsaHash };
    return await verified(cert, issuer, algorithm, algorithm, cert.signature);
  }
  const ecdsaHash = ECDSA.get(oid);
  if (ecdsaHash !== undefined) {
    alg.finish("the algorithm parameters");
    if (key.type !== "ec") return false;
    const size = CURVE_SIZES.get(key.curve);
    if (size === undefined) throw new UnsupportedAlgorithmError(`ECDSA on curve ${key.curve}`);
    const signature = rawEcdsaSignature(cert.signature, size);
    if (signature === undefined) return false;
    return await verified(
      cert,
      issuer,
      { name: "ECDSA", namedCurve: key.curve },
      { name: "ECDSA", hash: ecdsaHash },
      signature,
    );
  }
  if (oid === ED25519) {
    alg.finish("the algorithm parameters");
    if (key.type !== "ed25519") return false;
    return await verified(cert, issuer, { name: "Ed25519" }, { name: "Ed25519" }, cert.signature);
  }
  if (oid === RSA_PSS) {
    if (alg.done) throw new UnsupportedAlgorithmError("RSA-PSS with SHA-1");
    const params = alg.next(Tag.SEQUENCE);
    alg.finish("the algorithm parameters");
    const { hash, saltLength } = pssParameters(der, params);
    const allowed = key.type === "rsa" ||
      (key.type === "rsa-pss" && pssKeyAllows(key.parameters, hash, saltLength));
    if (!allowed) return false;
    return await verified(
      cert,
      issuer,
      { name: "RSA-PSS", hash },
      { name: "RSA-PSS", saltLength },
      cert.signature,
    );
  }
  throw new UnsupportedAlgorithmError(oid);
}

/** WebCrypto's verdict on `signature` over `cert`'s signed bytes with `issuer`'s key. */
async function verified(
  cert: Certificate,
  issuer: Certificate,
  keyAlgorithm: ImportAlgorithm,
  algorithm: AlgorithmIdentifier | RsaPssParams | EcdsaParams,
  signature: Uint8Array,
): Promise<boolean> {
  const key = await importedKey(issuer, keyAlgorithm);
  if (key === undefined) return false;
  try {
    return await crypto.subtle.verify(algorithm, key, new Uint8Array(signature), new Uint8Array(cert.tbs));
  } catch (err) {
    // WebCrypto refuses some signatures outright (e.g. of the wrong length) rather than saying
    // false, and Deno reports some malformed keys (an EC point off its curve) only here, as a
    // TypeError.
    if (err instanceof DOMException || err instanceof TypeError) return false;
    throw err;
  }
}

/**
 * Whether an id-RSASSA-PSS key with `parameters` may verify a signature with `hash` (for the
 * message and MGF1) and `saltLength`: RFC 4055 binds the key to its hash and a minimum salt length.
 */
function pssKeyAllows(parameters: Uint8Array | undefined, hash: string, saltLength: number): boolean {
  if (parameters === undefined) return true;
  try {
    const limits = pssParameters(parameters, new DerReader(parameters).next(Tag.SEQUENCE));
    return limits.hash === hash && saltLength >= limits.saltLength;
  } catch (err) {
    // A key bound to SHA-1 or to parameters we cannot read verifies nothing this check accepts.
    if (err instanceof UnsupportedAlgorithmError || err instanceof SyntaxError) return false;
    throw err;
  }
}

/** RSASSA-PSS-params (RFC 4055) in `element`: the hash, MGF1 with the same hash, the salt length. */
function pssParameters(der: Uint8Array, element: Element): { hash: string; saltLength: number } {
  const params = DerReader.inside(der, element);
  let hash: string | undefined;
  let mgfHash: string | undefined;
  let saltLength = 20;
  if (params.peekTag() === 0xa0) hash = hashOf(der, DerReader.inside(der, params.next()));
  if (params.peekTag() === 0xa1) {
    const mgf = DerReader.inside(der, DerReader.inside(der, params.next()).next(Tag.SEQUENCE));
    if (readOid(der, mgf.next(Tag.OID)) !== MGF1) {
      throw new UnsupportedAlgorithmError("RSA-PSS with an unknown MGF");
    }
    mgfHash = hashOf(der, mgf);
  }
  if (params.peekTag() === 0xa2) {
    saltLength = readSmallInteger(der, DerReader.inside(der, params.next()).next(Tag.INTEGER));
  }
  if (params.peekTag() === 0xa3) {
    const trailer = DerReader.inside(der, params.next()).next(Tag.INTEGER);
    if (contents(der, trailer).length !== 1 || contents(der, trailer)[0] !== 1) {
      throw new UnsupportedAlgorithmError("RSA-PSS with an unknown trailer");
    }
  }
  params.finish("RSA-PSS parameters");
  if (hash === undefined || mgfHash !== hash) {
    throw new UnsupportedAlgorithmError("RSA-PSS with SHA-1 or mixed hashes");
  }
  return { hash, saltLength };
}

/** The hash named by an AlgorithmIdentifier whose contents `reader` is positioned on. */
function hashOf(der: Uint8Array, reader: DerReader): string {
  const alg = DerReader.inside(der, reader.next(Tag.SEQUENCE));
  const oid = readOid(der, alg.next(Tag.OID));
  if (!alg.done) alg.next(Tag.NULL);
  alg.finish("the hash parameters");
  const hash = HASHES.get(oid);
  if (hash === undefined) throw new UnsupportedAlgorithmError(`hash ${oid}`);
  return hash;
}
