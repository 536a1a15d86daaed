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
import { ipAddressBytes } from "../_internal/ip_address.ts";

/** A certificate chain and its private key, both PEM. */
export interface TlsMaterial {
  /** PEM certificate chain, leaf first. */
  readonly cert: string;
  /** PEM private key (PKCS#8). */
  readonly key: string;
}

/** Options of {@linkcode selfSignedCertificate}. */
export interface SelfSignedOptions {
  /** DNS names and IP addresses the certificate is valid for (subjectAltName); the first is also the CN. */
  hosts: readonly string[];
  /**
   * Validity from `now`.
   * @default {365 days}
   */
  validityMs?: number;
  /**
   * Start of validity; notBefore is set an hour earlier to absorb clock skew.
   * @default {new Date()}
   */
  now?: Date;
}

const ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
const COMMON_NAME = "2.5.4.3";
const SUBJECT_KEY_IDENTIFIER = "2.5.29.14";
const KEY_USAGE = "2.5.29.15";
const SUBJECT_ALT_NAME = "2.5.29.17";
const BASIC_CONSTRAINTS = "2.5.29.19";
const EXT_KEY_USAGE = "2.5.29.37";
const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const DAY_MS = 86_400_000;

/**
 * A fresh ECDSA P-256 key and a self-signed X.509 v3 server certificate for `hosts`, made with WebCrypto and
 * our DER writer: no CA (basicConstraints cA=false), keyUsage digitalSignature, extKeyUsage serverAuth,
 * subjectAltName with every host (IPv4/IPv6 literals as IP addresses, the rest as DNS names), a random
 * 128-bit serial. Clients can trust it by pinning this very certificate; it is what serves /metrics when no
 * certificate files are given, as in kubebuilder's scaffold.
 */
export async function selfSignedCertificate(options: SelfSignedOptions): Promise<TlsMaterial> {
  const hosts = options.hosts.filter((h) => h !== "");
  if (hosts.length === 0) throw new TypeError("A self-signed certificate needs at least one host");
  const now = options.now ?? new Date();
  const validityMs = options.validityMs ?? 365 * DAY_MS;
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  const rawPublic = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  const keyId = new Uint8Array(await crypto.subtle.digest("SHA-1", rawPublic));
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] = serial[0]! & 0x7f; // positive, and at most 20 octets as RFC 5280 asks
  const name = sequence(set(sequence(oid(COMMON_NAME), utf8String(hosts[0]!))));
  const algorithm = sequence(oid(ECDSA_WITH_SHA256));
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serial),
    algorithm,
    name,
    sequence(time(new Date(now.getTime() - 3_600_000)), time(new Date(now.getTime() + validityMs))),
    name,
    spki,
    explicit(
      3,
      sequence(
        extension(BASIC_CONSTRAINTS, true, sequence()),
        extension(KEY_USAGE, true, Uint8Array.of(0x03, 0x02, 0x07, 0x80)), // BIT STRING: digitalSignature
        extension(EXT_KEY_USAGE, false, sequence(oid(SERVER_AUTH))),
        extension(SUBJECT_ALT_NAME, false, sequence(...hosts.map(generalName))),
        extension(SUBJECT_KEY_IDENTIFIER, false, octetString(keyId)),
      ),
    ),
  );
  const p1363 = new Uint8Array(
    await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, tbs),
  );
  const certificate = sequence(tbs, algorithm, bitString(ecdsaSigValue(p1363)));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  return { cert: pem("CERTIFICATE", certificate), key: pem("PRIVATE KEY", pkcs8) };
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
