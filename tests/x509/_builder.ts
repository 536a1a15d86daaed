// Certificates made to order for the path-check tests, with our DER writer and WebCrypto: any CA
// constraint, name constraint or extension a scenario needs, valid or not. Ed25519 keys come from a
// seed (and Ed25519 signatures are deterministic), so a seed replays byte-identical certificates;
// P-256 keys, for TLS servers whose peers may not offer Ed25519, are random.
import {
  bitString,
  boolean,
  type Der,
  explicit,
  octetString,
  oid,
  sequence,
  set,
  smallInteger,
  time,
  tlv,
  unsignedInteger,
  utf8String,
} from "../../lib/x509/der_writer.ts";
import { ipAddressBytes } from "../../lib/_internal/ip_address.ts";

/** A key that certificates certify and that signs the certificates it issues. */
export interface Key {
  /** SubjectPublicKeyInfo. */
  readonly spki: Der;
  /** The AlgorithmIdentifier of its signatures. */
  readonly algorithm: Der;
  /** The private key, PKCS#8 PEM (for a TLS server). */
  readonly pkcs8Pem: string;
  /** The signatureValue bits over `data`. */
  sign(data: Uint8Array<ArrayBuffer>): Promise<Uint8Array>;
}

// PKCS#8 PrivateKeyInfo of an Ed25519 key, up to the 32 bytes of the key itself (RFC 8410).
const ED25519_PKCS8_PREFIX = "302e020100300506032b657004220420";

/** An Ed25519 key whose private part is 32 bytes drawn from `random`. */
export async function ed25519Key(random: () => number): Promise<Key> {
  const seed = Uint8Array.from({ length: 32 }, () => Math.floor(random() * 256));
  const prefix = ED25519_PKCS8_PREFIX.match(/../g)!.map((h) => parseInt(h, 16));
  const pkcs8 = new Uint8Array([...prefix, ...seed]);
  const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, ["sign"]);
  const jwk = await crypto.subtle.exportKey("jwk", privateKey);
  const publicKey = base64UrlBytes(jwk.x!);
  const algorithm = sequence(oid("1.3.101.112"));
  return {
    spki: sequence(algorithm, bitString(publicKey)),
    algorithm,
    pkcs8Pem: pem("PRIVATE KEY", pkcs8),
    async sign(data) {
      return new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, privateKey, data));
    },
  };
}

/** A fresh ECDSA P-256 key, signing with SHA-256. */
export async function p256Key(): Promise<Key> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  return {
    spki,
    algorithm: sequence(oid("1.2.840.10045.4.3.2")),
    pkcs8Pem: pem("PRIVATE KEY", pkcs8),
    async sign(data) {
      const p1363 = new Uint8Array(
        await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, data),
      );
      return sequence(unsignedInteger(p1363.subarray(0, 32)), unsignedInteger(p1363.subarray(32)));
    },
  };
}

/**
 * A general name: `dns:example.com`, `ip:10.0.0.1` (in a subjectAltName) or `ip:10.0.0.0/8` (in a
 * name constraint: address and mask), `email:a@example.com`, `uri:https://x.example`, `dn:CN=x`.
 */
export type GeneralNameText = string;

/** An extension as its OID, criticality and value (the contents of its OCTET STRING). */
export interface Extension {
  readonly oid: string;
  readonly critical: boolean;
  readonly value: Der;
}

/** What to put in a certificate; everything absent is left out of it. */
export interface CertificateSpec {
  /** The subject's CN. */
  readonly subject: string;
  readonly key: Key;
  /** Who signs it; itself (self-signed) when absent. */
  readonly issuer?: { readonly subject: string; readonly key: Key } | undefined;
  /** 1: no extensions at all. @default {3} */
  readonly version?: 1 | 3 | undefined;
  /** @default {1} */
  readonly serial?: number | undefined;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** basicConstraints cA (absent: no basicConstraints extension). */
  readonly ca?: boolean | undefined;
  readonly pathLen?: number | undefined;
  /** keyUsage bits by name. */
  readonly keyUsage?: readonly ("digitalSignature" | "keyCertSign" | "cRLSign")[] | undefined;
  /** extKeyUsage purposes: OIDs, or serverAuth, clientAuth, any. */
  readonly eku?: readonly string[] | undefined;
  readonly sans?: readonly GeneralNameText[] | undefined;
  readonly sansCritical?: boolean | undefined;
  readonly nameConstraints?: {
    readonly permitted?: readonly GeneralNameText[] | undefined;
    readonly excluded?: readonly GeneralNameText[] | undefined;
    readonly critical?: boolean | undefined;
  } | undefined;
  /** Any other extensions. */
  readonly extensions?: readonly Extension[] | undefined;
}

const PURPOSES: Record<string, string> = {
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
  any: "2.5.29.37.0",
};
const KEY_USAGE_BITS = { digitalSignature: 0x80, keyCertSign: 0x04, cRLSign: 0x02 } as const;

/** The DER certificate `spec` describes. */
export async function certificate(spec: CertificateSpec): Promise<Uint8Array<ArrayBuffer>> {
  const issuer = spec.issuer ?? { subject: spec.subject, key: spec.key };
  const fields: Der[] = [];
  if ((spec.version ?? 3) === 3) fields.push(explicit(0, smallInteger(2)));
  fields.push(
    smallInteger(spec.serial ?? 1),
    issuer.key.algorithm,
    distinguishedName(issuer.subject),
    sequence(time(spec.notBefore), time(spec.notAfter)),
    distinguishedName(spec.subject),
    spec.key.spki,
  );
  const extensions = extensionsOf(spec);
  if ((spec.version ?? 3) === 3 && extensions.length > 0) fields.push(explicit(3, sequence(...extensions)));
  const tbs = sequence(...fields);
  return sequence(tbs, issuer.key.algorithm, bitString(await issuer.key.sign(tbs)));
}

function extensionsOf(spec: CertificateSpec): Der[] {
  const out: Der[] = [];
  if (spec.ca !== undefined) {
    const parts: Der[] = spec.ca ? [boolean(true)] : [];
    if (spec.pathLen !== undefined) parts.push(smallInteger(spec.pathLen));
    out.push(extension("2.5.29.19", true, sequence(...parts)));
  }
  if (spec.keyUsage !== undefined) {
    let bits = 0;
    for (const usage of spec.keyUsage) bits |= KEY_USAGE_BITS[usage];
    out.push(extension("2.5.29.15", true, bitString(Uint8Array.of(bits))));
  }
  if (spec.eku !== undefined) {
    out.push(extension("2.5.29.37", false, sequence(...spec.eku.map((p) => oid(PURPOSES[p] ?? p)))));
  }
  if (spec.sans !== undefined) {
    out.push(extension("2.5.29.17", spec.sansCritical ?? false, sequence(...spec.sans.map(generalName))));
  }
  const nc = spec.nameConstraints;
  if (nc !== undefined) {
    const trees: Der[] = [];
    if (nc.permitted !== undefined) trees.push(tlv(0xa0, ...nc.permitted.map(subtree)));
    if (nc.excluded !== undefined) trees.push(tlv(0xa1, ...nc.excluded.map(subtree)));
    out.push(extension("2.5.29.30", nc.critical ?? true, sequence(...trees)));
  }
  for (const e of spec.extensions ?? []) out.push(extension(e.oid, e.critical, e.value));
  return out;
}

function extension(id: string, critical: boolean, value: Der): Der {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

function subtree(name: GeneralNameText): Der {
  return sequence(generalName(name));
}

/** A GeneralName from its text form (see GeneralNameText). */
export function generalName(text: GeneralNameText): Der {
  const colon = text.indexOf(":");
  const kind = text.slice(0, colon);
  const value = text.slice(colon + 1);
  const ascii = (tag: number) => tlv(tag, new TextEncoder().encode(value));
  switch (kind) {
    case "email":
      return ascii(0x81);
    case "dns":
      return ascii(0x82);
    case "uri":
      return ascii(0x86);
    case "dn":
      return tlv(0xa4, distinguishedName(value.replace(/^CN=/, "")));
    case "ip": {
      const [address, prefix] = value.split("/");
      const bytes = ipAddressBytes(address!);
      if (bytes === undefined) throw new TypeError(`not an IP address: ${text}`);
      if (prefix === undefined) return tlv(0x87, bytes);
      const mask = new Uint8Array(bytes.length);
      for (let bit = 0; bit < Number(prefix); bit++) mask[bit >> 3]! |= 0x80 >> (bit & 7);
      return tlv(0x87, bytes, mask);
    }
    default:
      throw new TypeError(`unknown general name ${text}`);
  }
}

function distinguishedName(cn: string): Der {
  return sequence(set(sequence(oid("2.5.4.3"), utf8String(cn))));
}

/** PEM of a DER certificate. */
export function certificatePem(der: Uint8Array): string {
  return pem("CERTIFICATE", der);
}

function pem(label: string, der: Uint8Array): string {
  let binary = "";
  for (const byte of der) binary += String.fromCharCode(byte);
  const lines = btoa(binary).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
