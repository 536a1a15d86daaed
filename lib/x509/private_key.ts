/**
 * PEM private keys for the TLS server, read and matched to a certificate with WebCrypto alone (no
 * `node:crypto`, which would load Deno's Node compatibility layer into every controller). The forms
 * are those a Secret or cert-manager writes: "PRIVATE KEY" (PKCS#8: RSA, EC P-256/P-384/P-521,
 * Ed25519), "RSA PRIVATE KEY" (PKCS#1) and "EC PRIVATE KEY" (SEC1), the last two wrapped into PKCS#8
 * here because WebCrypto imports only that.
 * @module
 */
import { DerReader, type Element, readOid, Tag } from "./der_reader.ts";
import { EC_PUBLIC_KEY, ED25519, NAMED_CURVES, RSA_ENCRYPTION } from "./key_algorithms.ts";
import { pemBodyBytes } from "./pem.ts";
import { nullValue, octetString, oid, sequence, smallInteger } from "./der_writer.ts";

/** Thrown for an encrypted PEM private key: the TLS server has no passphrase to open it. */
export class EncryptedKeyError extends Error {
  constructor() {
    super("the private key is encrypted");
    this.name = "EncryptedKeyError";
  }
}

type KeyParams = RsaHashedImportParams | EcKeyImportParams | Algorithm;

/** A private key, and a signature it made when it was imported. */
export interface PrivateKey {
  /** Extractable, so that its public part can be compared ({@linkcode isKeyOf}). */
  readonly key: CryptoKey;
  /** 32 random bytes. */
  readonly challenge: Uint8Array<ArrayBuffer>;
  /** The challenge signed with the key (ECDSA and RSA with SHA-256). */
  readonly signature: ArrayBuffer;
}

/**
 * The private key of a PEM text (the first private-key block; an "EC PARAMETERS" block before it is
 * skipped), imported into WebCrypto as a signing key. It signs a random challenge at once: WebCrypto
 * imports an RSA key whose parts disagree (the modulus of one key, the primes of another) and fails
 * only when it signs, and the TLS server would refuse such a key only when restarting with it.
 * @throws {EncryptedKeyError} for "ENCRYPTED PRIVATE KEY" and legacy `Proc-Type: 4,ENCRYPTED` blocks.
 * @throws {SyntaxError} or a WebCrypto error when there is no usable key of a supported kind.
 */
export async function importPrivateKeyPem(pem: string): Promise<PrivateKey> {
  const block = privateKeyBlock(pem);
  const der = block.der;
  // WebCrypto imports only PKCS#8.
  let pkcs8: Uint8Array<ArrayBuffer>;
  if (block.label === "RSA PRIVATE KEY") {
    pkcs8 = sequence(smallInteger(0), sequence(oid(RSA_ENCRYPTION), nullValue()), octetString(der));
  } else if (block.label === "EC PRIVATE KEY") {
    pkcs8 = sequence(smallInteger(0), sequence(oid(EC_PUBLIC_KEY), oid(sec1Curve(der))), octetString(der));
  } else {
    pkcs8 = der;
  }
  const top = DerReader.inside(pkcs8, new DerReader(pkcs8).next(Tag.SEQUENCE));
  top.next(Tag.INTEGER); // version: 0, or 1 when a public key follows (RFC 5958)
  const params = keyParams(pkcs8, top.next(Tag.SEQUENCE));
  const key = await crypto.subtle.importKey("pkcs8", pkcs8, params, true, ["sign"]);
  const challenge = crypto.getRandomValues(new Uint8Array(32));
  const signature = await crypto.subtle.sign(signingParams(params), key, challenge);
  return { key, challenge, signature };
}

/**
 * The public key of a SubjectPublicKeyInfo (a certificate's), or undefined when its algorithm is not
 * one {@linkcode importPrivateKeyPem} reads.
 * @throws {SyntaxError} or a WebCrypto error when `spki` is malformed.
 */
export async function importPublicKey(spki: Uint8Array): Promise<CryptoKey | undefined> {
  const bytes = spki.slice();
  const top = DerReader.inside(bytes, new DerReader(bytes).next(Tag.SEQUENCE));
  let params: KeyParams;
  try {
    params = keyParams(bytes, top.next(Tag.SEQUENCE));
  } catch (error) {
    if (error instanceof UnsupportedAlgorithm) return undefined;
    throw error;
  }
  return await crypto.subtle.importKey("spki", bytes, params, true, ["verify"]);
}

/**
 * True when `privateKey` is the private half of `publicKey`: same algorithm (and curve), same public
 * parts, and the signature it made verifies with `publicKey`.
 */
export async function isKeyOf(privateKey: PrivateKey, publicKey: CryptoKey): Promise<boolean> {
  const { key, challenge, signature } = privateKey;
  if (!sameAlgorithm(key.algorithm, publicKey.algorithm)) return false;
  const [mine, theirs] = await Promise.all([
    crypto.subtle.exportKey("jwk", key),
    crypto.subtle.exportKey("jwk", publicKey),
  ]);
  const members = PUBLIC_MEMBERS[theirs.kty ?? ""] ?? [];
  if (members.length === 0 || members.some((m) => mine[m] === undefined || mine[m] !== theirs[m])) {
    return false;
  }
  return await crypto.subtle.verify(signingParams(publicKey.algorithm), publicKey, signature, challenge);
}

/** The JWK members that make up the public key, per key type. */
const PUBLIC_MEMBERS: Readonly<Record<string, readonly (keyof JsonWebKey)[]>> = {
  RSA: ["n", "e"],
  EC: ["crv", "x", "y"],
  OKP: ["crv", "x"],
};

class UnsupportedAlgorithm extends SyntaxError {}

/** WebCrypto import parameters for an AlgorithmIdentifier (of a PKCS#8 key or an SPKI). */
function keyParams(der: Uint8Array, algorithm: Element): KeyParams {
  const reader = DerReader.inside(der, algorithm);
  const id = readOid(der, reader.next(Tag.OID));
  switch (id) {
    case RSA_ENCRYPTION:
      // The hash only matters to signing (the challenge signature).
      return { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } satisfies RsaHashedImportParams;
    case EC_PUBLIC_KEY: {
      const curve = NAMED_CURVES.get(readOid(der, reader.next(Tag.OID)));
      if (curve === undefined) throw new UnsupportedAlgorithm("unsupported elliptic curve");
      return { name: "ECDSA", namedCurve: curve } satisfies EcKeyImportParams;
    }
    case ED25519:
      return { name: "Ed25519" };
    default:
      throw new UnsupportedAlgorithm(`unsupported key algorithm ${id}`);
  }
}

function sameAlgorithm(a: KeyAlgorithm, b: KeyAlgorithm): boolean {
  return a.name === b.name && (a as EcKeyAlgorithm).namedCurve === (b as EcKeyAlgorithm).namedCurve;
}

/** Signing parameters for a key; the hash of an RSA key comes with the key. */
function signingParams(algorithm: KeyAlgorithm): Algorithm | EcdsaParams {
  return algorithm.name === "ECDSA" ? { name: "ECDSA", hash: "SHA-256" } : { name: algorithm.name };
}

/** The named curve of a SEC1 ECPrivateKey, from its `[0] parameters` field. */
function sec1Curve(der: Uint8Array): string {
  const key = DerReader.inside(der, new DerReader(der).next(Tag.SEQUENCE));
  key.next(Tag.INTEGER);
  key.next(Tag.OCTET_STRING);
  if (key.peekTag() !== 0xa0) throw new SyntaxError("EC PRIVATE KEY without its curve");
  const wrapper = key.next();
  return readOid(der, DerReader.inside(der, wrapper).next(Tag.OID));
}

const KEY_LABELS = new Set(["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"]);
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** The first private-key block of a PEM text, decoded. */
function privateKeyBlock(pem: string): { label: string; der: Uint8Array<ArrayBuffer> } {
  for (const match of pem.matchAll(PEM_BLOCK)) {
    const label = match[1]!;
    if (label === "ENCRYPTED PRIVATE KEY") throw new EncryptedKeyError();
    if (!KEY_LABELS.has(label)) continue;
    const body = match[2]!;
    if (/^Proc-Type:\s*4,\s*ENCRYPTED/m.test(body)) throw new EncryptedKeyError();
    if (!/^[A-Za-z0-9+/=\s]+$/.test(body)) throw new SyntaxError(`malformed ${label} block`);
    return { label, der: pemBodyBytes(body) };
  }
  throw new SyntaxError("no PEM private key block");
}
