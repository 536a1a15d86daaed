/**
 * The parts of an X.509 certificate (RFC 5280) the server-certificate check needs, parsed from DER
 * by our own strict reader, so every trust decision is made on one reading of the bytes.
 * @module
 */
import {
  DerReader,
  encoding,
  readBitString,
  readSmallInteger,
  readTime,
  sameBytes,
  Tag,
} from "./der_reader.ts";
import { type CertificateExtensions, NO_EXTENSIONS, readExtensions } from "./extensions.ts";
import { pemBodyBytes } from "./pem.ts";

export type { AltName } from "./general_names.ts";

/** A parsed certificate; byte fields are views into `der`. */
export interface Certificate extends CertificateExtensions {
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
}

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
  let extensions = NO_EXTENSIONS;
  if (tbs.peekTag() === 0xa3) {
    if (version !== 3) throw new SyntaxError("extensions in a certificate that is not v3");
    const wrapper = DerReader.inside(der, tbs.next());
    extensions = readExtensions(der, wrapper.next(Tag.SEQUENCE));
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

/** The certificates of a PEM text, as DER. */
export function pemCertificates(pem: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  const pattern = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]*?)-----END CERTIFICATE-----/g;
  for (const match of pem.matchAll(pattern)) {
    out.push(pemBodyBytes(match[1]!));
  }
  return out;
}
