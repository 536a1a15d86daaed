/**
 * Checks that a certificate was signed by the key of another, with node:crypto over the signed
 * bytes our own parser found. Accepted algorithms are the ones Kubernetes PKI uses and Go accepts:
 * RSA PKCS#1 v1.5 and RSA-PSS with SHA-256/384/512, ECDSA with SHA-256/384/512, and Ed25519.
 * SHA-1 and anything else are refused.
 * @module
 */
import { Buffer } from "node:buffer";
import { constants, createPublicKey, type KeyObject, verify } from "node:crypto";
import type { Certificate } from "../_internal/x509_certificate.ts";
import { contents, DerReader, readOid, readSmallInteger, Tag } from "../_internal/der_reader.ts";

/** The certificate uses a signature algorithm this check does not accept. */
export class UnsupportedAlgorithmError extends Error {
  constructor(what: string) {
    super(`unsupported signature algorithm ${what}`);
    this.name = "UnsupportedAlgorithmError";
  }
}

const HASHES: ReadonlyMap<string, string> = new Map([
  ["2.16.840.1.101.3.4.2.1", "sha256"],
  ["2.16.840.1.101.3.4.2.2", "sha384"],
  ["2.16.840.1.101.3.4.2.3", "sha512"],
]);
const RSA_PKCS1: ReadonlyMap<string, string> = new Map([
  ["1.2.840.113549.1.1.11", "sha256"],
  ["1.2.840.113549.1.1.12", "sha384"],
  ["1.2.840.113549.1.1.13", "sha512"],
]);
const ECDSA: ReadonlyMap<string, string> = new Map([
  ["1.2.840.10045.4.3.2", "sha256"],
  ["1.2.840.10045.4.3.3", "sha384"],
  ["1.2.840.10045.4.3.4", "sha512"],
]);
const ED25519 = "1.3.101.112";
const RSA_PSS = "1.2.840.113549.1.1.10";
const MGF1 = "1.2.840.113549.1.1.8";

const keys = new WeakMap<Certificate, KeyObject>();

/** The public key of `cert`, parsed once per certificate. */
function publicKey(cert: Certificate): KeyObject {
  let key = keys.get(cert);
  if (key === undefined) {
    key = createPublicKey({ key: Buffer.from(cert.spki), format: "der", type: "spki" });
    keys.set(cert, key);
  }
  return key;
}

/**
 * True when `issuer`'s key made `cert`'s signature.
 * @throws {UnsupportedAlgorithmError} for an algorithm outside the list above.
 */
export function signedBy(cert: Certificate, issuer: Certificate): boolean {
  const der = cert.signatureAlgorithm;
  const alg = DerReader.inside(der, new DerReader(der).next(Tag.SEQUENCE));
  const oid = readOid(der, alg.next(Tag.OID));
  let key: KeyObject;
  try {
    key = publicKey(issuer);
  } catch {
    return false;
  }
  const type = key.asymmetricKeyType;
  const data = cert.tbs;
  const signature = cert.signature;
  const rsaHash = RSA_PKCS1.get(oid);
  if (rsaHash !== undefined) {
    if (!alg.done) alg.next(Tag.NULL);
    alg.finish("the algorithm parameters");
    return type === "rsa" && verify(rsaHash, data, key, signature);
  }
  const ecdsaHash = ECDSA.get(oid);
  if (ecdsaHash !== undefined) {
    alg.finish("the algorithm parameters");
    return type === "ec" && verify(ecdsaHash, data, key, signature);
  }
  if (oid === ED25519) {
    alg.finish("the algorithm parameters");
    return type === "ed25519" && verify(null, data, key, signature);
  }
  if (oid === RSA_PSS) {
    const { hash, saltLength } = pssParameters(der, alg);
    return (type === "rsa" || type === "rsa-pss") &&
      verify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }, signature);
  }
  throw new UnsupportedAlgorithmError(oid);
}

/** RSASSA-PSS-params (RFC 4055): the hash, MGF1 with the same hash, and the salt length. */
function pssParameters(der: Uint8Array, alg: DerReader): { hash: string; saltLength: number } {
  if (alg.done) throw new UnsupportedAlgorithmError("RSA-PSS with SHA-1");
  const params = DerReader.inside(der, alg.next(Tag.SEQUENCE));
  alg.finish("the algorithm parameters");
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
