/**
 * X.509 v3 certificates made here, with WebCrypto keys and our DER writer: a CA, a server certificate a CA
 * signs, or a self-signed one. Every key is a fresh ECDSA P-256 key (ecdsa-with-SHA256 signatures): what
 * kube-apiserver, Go's crypto/x509 and rustls all accept, and a key generated in about a millisecond.
 * @module
 */
import {
  bitString,
  boolean,
  type Der,
  explicit,
  implicitPrimitive,
  octetString,
  oid,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from "./der_writer.ts";
import { DerReader, readBitString, Tag } from "./der_reader.ts";
import { parseCertificate, pemCertificates } from "./certificate.ts";
import { importPrivateKeyPem } from "./private_key.ts";
import { ipAddressBytes } from "../_internal/ip_address.ts";

/** A certificate chain and its private key, both PEM. */
export interface TlsMaterial {
  /** PEM certificate chain, leaf first. */
  readonly cert: string;
  /** PEM private key (PKCS#8). */
  readonly key: string;
}

/** What to certify, and for how long. */
export interface IssueOptions {
  /** The subject's common name. Certificates of different CAs should have different names. */
  commonName: string;
  /**
   * A CA (basicConstraints cA, pathLen 0: it signs server certificates only; keyUsage keyCertSign and
   * cRLSign), or a server certificate (keyUsage digitalSignature, extKeyUsage serverAuth).
   */
  ca: boolean;
  /**
   * DNS names and IP addresses of a server certificate (subjectAltName; IP literals as addresses).
   * @default {[]}
   */
  hosts?: readonly string[];
  /** notAfter is `now` plus this, unless `issuer` expires sooner: then the issuer's notAfter. */
  validityMs: number;
  /** Start of validity. */
  now: Date;
  /**
   * notBefore is this much before `now`, so that a client whose clock is a little behind accepts the
   * certificate at once.
   * @default {3_600_000}
   */
  backdateMs?: number;
  /**
   * The CA that signs it (its PEM certificate and PEM ECDSA P-256 key).
   * @default {none: self-signed}
   */
  issuer?: TlsMaterial;
}

const ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
const COMMON_NAME = "2.5.4.3";
const SUBJECT_KEY_IDENTIFIER = "2.5.29.14";
const KEY_USAGE = "2.5.29.15";
const SUBJECT_ALT_NAME = "2.5.29.17";
const BASIC_CONSTRAINTS = "2.5.29.19";
const AUTHORITY_KEY_IDENTIFIER = "2.5.29.35";
const EXT_KEY_USAGE = "2.5.29.37";
const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const SKEW_MS = 3_600_000;

interface Signer {
  /** The issuer's subject, as DER. */
  readonly name: Der;
  /** Its subjectKeyIdentifier (SHA-1 of its public key bits, RFC 5280 4.2.1.2 method 1). */
  readonly keyId: Uint8Array;
  readonly key: CryptoKey;
  readonly notAfter: number;
}

/**
 * A fresh key and a certificate for it (see {@linkcode IssueOptions}), with a random 128-bit serial and a
 * subjectKeyIdentifier; signed by `issuer` (then also an authorityKeyIdentifier) or by its own key.
 * @throws {TypeError} for a host that is not a DNS name or IP literal, a server certificate without hosts,
 *   or an issuer whose key is not ECDSA P-256 or does not belong to its certificate's subject.
 * @throws {RangeError} when `issuer` has expired at `now`.
 */
export async function issueCertificate(options: IssueOptions): Promise<TlsMaterial> {
  const hosts = options.hosts ?? [];
  if (!options.ca && hosts.length === 0) throw new TypeError("A server certificate needs at least one host");
  const sans = hosts.map(generalName);
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  const keyId = await keyIdOf(spki);
  const subject = sequence(set(sequence(oid(COMMON_NAME), utf8String(options.commonName))));
  const now = options.now.getTime();
  const signer: Signer = options.issuer
    ? await signerOf(options.issuer)
    : { name: subject, keyId, key: pair.privateKey, notAfter: Number.POSITIVE_INFINITY };
  if (signer.notAfter <= now) throw new RangeError("The issuing CA has expired");
  const notAfter = Math.min(now + options.validityMs, signer.notAfter);
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] = serial[0]! & 0x7f; // positive, and at most 20 octets as RFC 5280 asks
  const algorithm = sequence(oid(ECDSA_WITH_SHA256));
  const extensions = options.ca
    ? [
      extension(BASIC_CONSTRAINTS, true, sequence(boolean(true), smallInteger(0))),
      extension(KEY_USAGE, true, Uint8Array.of(0x03, 0x02, 0x01, 0x06)), // keyCertSign, cRLSign
    ]
    : [
      extension(BASIC_CONSTRAINTS, true, sequence()),
      extension(KEY_USAGE, true, Uint8Array.of(0x03, 0x02, 0x07, 0x80)), // digitalSignature
      extension(EXT_KEY_USAGE, false, sequence(oid(SERVER_AUTH))),
    ];
  if (sans.length > 0) extensions.push(extension(SUBJECT_ALT_NAME, false, sequence(...sans)));
  extensions.push(extension(SUBJECT_KEY_IDENTIFIER, false, octetString(keyId)));
  if (options.issuer) {
    extensions.push(
      extension(AUTHORITY_KEY_IDENTIFIER, false, sequence(implicitPrimitive(0, signer.keyId))),
    );
  }
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serial),
    algorithm,
    signer.name,
    sequence(time(new Date(now - (options.backdateMs ?? SKEW_MS))), time(new Date(notAfter))),
    subject,
    spki,
    explicit(3, sequence(...extensions)),
  );
  const p1363 = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, signer.key, tbs));
  const certificate = sequence(tbs, algorithm, bitString(ecdsaSigValue(p1363)));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  return { cert: pem("CERTIFICATE", certificate), key: pem("PRIVATE KEY", pkcs8) };
}

/** The issuer's name, key identifier and signing key; its key must be ECDSA P-256 and match. */
async function signerOf(issuer: TlsMaterial): Promise<Signer> {
  const [der] = pemCertificates(issuer.cert);
  if (der === undefined) throw new TypeError("The issuer has no PEM certificate");
  const cert = parseCertificate(der);
  if (cert.isCa !== true) throw new TypeError("The issuer's certificate is not a CA");
  const { key } = await importPrivateKeyPem(issuer.key);
  const algorithm = key.algorithm as EcKeyAlgorithm;
  if (algorithm.name !== "ECDSA" || algorithm.namedCurve !== "P-256") {
    throw new TypeError("The issuer's key must be an ECDSA P-256 key");
  }
  const [mine, theirs] = await Promise.all([
    crypto.subtle.exportKey("jwk", key),
    crypto.subtle.importKey("spki", cert.spki.slice(), { name: "ECDSA", namedCurve: "P-256" }, true, [
      "verify",
    ]).then((k) => crypto.subtle.exportKey("jwk", k)),
  ]);
  if (mine.x !== theirs.x || mine.y !== theirs.y) {
    throw new TypeError("The issuer's key does not belong to its certificate");
  }
  return { name: cert.subject.slice(), keyId: await keyIdOf(cert.spki), key, notAfter: cert.notAfter };
}

/** SHA-1 of the subjectPublicKey BIT STRING's bytes of a SubjectPublicKeyInfo. */
async function keyIdOf(spki: Uint8Array): Promise<Uint8Array> {
  const top = DerReader.inside(spki, new DerReader(spki).next(Tag.SEQUENCE));
  top.next(Tag.SEQUENCE); // algorithm
  const { bits } = readBitString(spki, top.next(Tag.BIT_STRING));
  return new Uint8Array(await crypto.subtle.digest("SHA-1", bits.slice()));
}

function extension(id: string, critical: boolean, value: Der): Der {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

/** A GeneralName: iPAddress [7] for IP literals, dNSName [2] otherwise. */
function generalName(host: string): Der {
  const ip = ipAddressBytes(host);
  if (ip) return implicitPrimitive(7, ip);
  if (!isCertificateHost(host)) {
    throw new TypeError(`Invalid host "${host}" for a certificate: not a DNS name, IPv4 or IPv6 address`);
  }
  return implicitPrimitive(2, new TextEncoder().encode(host));
}

/**
 * True when `host` can be a subjectAltName: an IPv4 or IPv6 literal (as `ipAddressBytes` reads them: no
 * zone id, no leading zeros), or a DNS name (`*.` allowed first) that is not made of digits and dots
 * only: "01.2.3.4" or "256.0.0.1" is a mistyped address, not a name to certify.
 */
export function isCertificateHost(host: string): boolean {
  if (ipAddressBytes(host) !== undefined) return true;
  return !/^[0-9.]+$/.test(host) && /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(host);
}

/** WebCrypto's ECDSA signature (r || s) as the DER `ECDSA-Sig-Value` X.509 expects. */
function ecdsaSigValue(p1363: Uint8Array): Der {
  const half = p1363.length / 2;
  return sequence(unsignedInteger(p1363.subarray(0, half)), unsignedInteger(p1363.subarray(half)));
}

function pem(label: string, der: Uint8Array): string {
  let binary = "";
  for (const byte of der) binary += String.fromCharCode(byte);
  const lines = btoa(binary).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
