/**
 * The parts of an X.509 certificate (RFC 5280) the server-certificate check needs, parsed from DER
 * by our own strict reader, so every trust decision is made on one reading of the bytes.
 * @module
 */
import {
  contents,
  DerReader,
  type Element,
  encoding,
  readBitString,
  readBoolean,
  readOid,
  readSmallInteger,
  readTime,
  sameBytes,
  Tag,
} from "./der_reader.ts";
import { pemBodyBytes } from "./pem.ts";

/** A name from the subjectAltName extension that the check understands. */
export type AltName =
  | { readonly kind: "dns"; readonly value: string }
  | { readonly kind: "ip"; readonly bytes: Uint8Array };

/** A parsed certificate; byte fields are views into `der`. */
export interface Certificate {
  /** The whole certificate. */
  readonly der: Uint8Array;
  /** 1 or 3 (2 is refused as it is never used). */
  readonly version: number;
  /** The signed part, and how it was signed. */
  readonly tbs: Uint8Array;
  readonly signatureAlgorithm: Uint8Array;
  readonly signature: Uint8Array;
  /** Names as their DER encodings: an issuer matches a subject when the bytes are equal. */
  readonly issuer: Uint8Array;
  readonly subject: Uint8Array;
  /** SubjectPublicKeyInfo: the key that verifies the certificates this one issued. */
  readonly spki: Uint8Array;
  readonly notBefore: number;
  readonly notAfter: number;
  /** basicConstraints: undefined when the extension is absent. */
  readonly isCa: boolean | undefined;
  readonly pathLength: number | undefined;
  /** keyUsage keyCertSign bit; undefined when the extension is absent. */
  readonly keyCertSign: boolean | undefined;
  /** extKeyUsage purposes as OIDs; undefined when the extension is absent. */
  readonly extKeyUsage: readonly string[] | undefined;
  readonly altNames: readonly AltName[];
  /** OIDs of critical extensions this check does not understand. */
  readonly unhandledCritical: readonly string[];
}

const ascii = new TextDecoder();
const EXT_SUBJECT_ALT_NAME = "2.5.29.17";
const EXT_BASIC_CONSTRAINTS = "2.5.29.19";
const EXT_KEY_USAGE = "2.5.29.15";
const EXT_EXT_KEY_USAGE = "2.5.29.37";

/**
 * Parses a DER certificate.
 * @throws {SyntaxError} when it is not a well-formed X.509 certificate.
 */
export function parseCertificate(der: Uint8Array): Certificate {
  const top = new DerReader(der);
  const cert = top.next(Tag.SEQUENCE);
  top.finish("the certificate");
  const outer = DerReader.inside(der, cert);
  const tbsElement = outer.next(Tag.SEQUENCE);
  const signatureAlgorithm = encoding(der, outer.next(Tag.SEQUENCE));
  const signatureBits = readBitString(der, outer.next(Tag.BIT_STRING));
  outer.finish("the signature");
  if (signatureBits.unused !== 0) throw new SyntaxError("certificate signature is not whole bytes");

  const tbs = DerReader.inside(der, tbsElement);
  let version = 1;
  if (tbs.peekTag() === 0xa0) {
    const wrapper = DerReader.inside(der, tbs.next());
    const v = readSmallInteger(der, wrapper.next(Tag.INTEGER));
    wrapper.finish("the version");
    if (v === 0) throw new SyntaxError("DER: an explicit default version");
    if (v !== 2) throw new SyntaxError(`unsupported certificate version ${v + 1}`);
    version = 3;
  }
  tbs.next(Tag.INTEGER); // serialNumber
  const innerAlgorithm = encoding(der, tbs.next(Tag.SEQUENCE));
  if (!sameBytes(innerAlgorithm, signatureAlgorithm)) {
    throw new SyntaxError("certificate's inner and outer signature algorithms differ");
  }
  const issuer = encoding(der, tbs.next(Tag.SEQUENCE));
  const validity = DerReader.inside(der, tbs.next(Tag.SEQUENCE));
  const notBefore = readTime(der, validity.next());
  const notAfter = readTime(der, validity.next());
  validity.finish("the validity");
  const subject = encoding(der, tbs.next(Tag.SEQUENCE));
  const spki = encoding(der, tbs.next(Tag.SEQUENCE));
  if (tbs.peekTag() === 0x81) tbs.next(); // issuerUniqueID
  if (tbs.peekTag() === 0x82) tbs.next(); // subjectUniqueID
  const extensions: Extensions = emptyExtensions();
  if (tbs.peekTag() === 0xa3) {
    if (version !== 3) throw new SyntaxError("extensions in a certificate that is not v3");
    const wrapper = DerReader.inside(der, tbs.next());
    readExtensions(der, wrapper.next(Tag.SEQUENCE), extensions);
    wrapper.finish("the extensions");
  }
  tbs.finish("the certificate's fields");

  return {
    der,
    version,
    tbs: encoding(der, tbsElement),
    signatureAlgorithm,
    signature: signatureBits.bits,
    issuer,
    subject,
    spki,
    notBefore,
    notAfter,
    ...extensions,
  };
}

type Extensions = Pick<
  Certificate,
  "isCa" | "pathLength" | "keyCertSign" | "extKeyUsage" | "altNames" | "unhandledCritical"
>;

function emptyExtensions(): { -readonly [K in keyof Extensions]: Extensions[K] } {
  return {
    isCa: undefined,
    pathLength: undefined,
    keyCertSign: undefined,
    extKeyUsage: undefined,
    altNames: [],
    unhandledCritical: [],
  };
}

function readExtensions(der: Uint8Array, list: Element, out: ReturnType<typeof emptyExtensions>): void {
  const seen = new Set<string>();
  const unhandled: string[] = [];
  const reader = DerReader.inside(der, list);
  while (!reader.done) {
    const ext = DerReader.inside(der, reader.next(Tag.SEQUENCE));
    const oid = readOid(der, ext.next(Tag.OID));
    let critical = false;
    if (ext.peekTag() === Tag.BOOLEAN) {
      critical = readBoolean(der, ext.next());
      if (!critical) throw new SyntaxError("DER: an explicit default critical flag");
    }
    const value = ext.next(Tag.OCTET_STRING);
    ext.finish("an extension");
    if (seen.has(oid)) throw new SyntaxError(`extension ${oid} appears twice`);
    seen.add(oid);
    const inner = DerReader.inside(der, value);
    switch (oid) {
      case EXT_BASIC_CONSTRAINTS: {
        const bc = DerReader.inside(der, inner.next(Tag.SEQUENCE));
        out.isCa = bc.peekTag() === Tag.BOOLEAN ? readBoolean(der, bc.next()) : false;
        if (bc.peekTag() === Tag.INTEGER) out.pathLength = readSmallInteger(der, bc.next());
        bc.finish("basicConstraints");
        break;
      }
      case EXT_KEY_USAGE: {
        const { bits } = readBitString(der, inner.next(Tag.BIT_STRING));
        out.keyCertSign = bits.length > 0 && (bits[0]! & 0x04) !== 0;
        break;
      }
      case EXT_EXT_KEY_USAGE: {
        const purposes: string[] = [];
        const seq = DerReader.inside(der, inner.next(Tag.SEQUENCE));
        while (!seq.done) purposes.push(readOid(der, seq.next(Tag.OID)));
        out.extKeyUsage = purposes;
        break;
      }
      case EXT_SUBJECT_ALT_NAME:
        out.altNames = readAltNames(der, inner.next(Tag.SEQUENCE));
        break;
      default:
        if (critical) unhandled.push(oid);
        continue;
    }
    inner.finish(`extension ${oid}`);
  }
  out.unhandledCritical = unhandled;
}

function readAltNames(der: Uint8Array, seq: Element): AltName[] {
  const names: AltName[] = [];
  const reader = DerReader.inside(der, seq);
  while (!reader.done) {
    const name = reader.next();
    if (name.tag === 0x82) {
      const value = contents(der, name);
      // IA5String: ASCII only, so no look-alike characters can pass as a host name.
      if (value.some((b) => b > 0x7e || b < 0x21)) throw new SyntaxError("invalid dNSName in subjectAltName");
      names.push({ kind: "dns", value: ascii.decode(value) });
    } else if (name.tag === 0x87) {
      const bytes = contents(der, name);
      if (bytes.length !== 4 && bytes.length !== 16) {
        throw new SyntaxError("invalid iPAddress in subjectAltName");
      }
      names.push({ kind: "ip", bytes });
    }
  }
  return names;
}

/** The certificates of a PEM text, as DER. */
export function pemCertificates(pem: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  const pattern = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]*?)-----END CERTIFICATE-----/g;
  for (const match of pem.matchAll(pattern)) {
    out.push(pemBodyBytes(match[1]!));
  }
  return out;
}
