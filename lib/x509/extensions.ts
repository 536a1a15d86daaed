/**
 * The extensions of an X.509 v3 certificate (RFC 5280 4.2) that the path check reads: the ones Go's
 * crypto/x509 reads by default. Any other extension marked critical is recorded as not understood,
 * which refuses the certificate wherever it appears on a path.
 * @module
 */
import {
  DerReader,
  type Element,
  readBitString,
  readBoolean,
  readOid,
  readSmallInteger,
  Tag,
} from "./der_reader.ts";
import { type AltName, readAltNames } from "./general_names.ts";
import { type NameConstraints, readNameConstraints } from "./name_constraints.ts";

/** What a certificate's extensions say; byte fields are views into the certificate. */
export interface CertificateExtensions {
  /** basicConstraints: undefined when the extension is absent. */
  readonly isCa: boolean | undefined;
  readonly pathLength: number | undefined;
  /** keyUsage keyCertSign bit; undefined when the extension is absent. */
  readonly keyCertSign: boolean | undefined;
  /** extKeyUsage purposes as OIDs; undefined when the extension is absent. */
  readonly extKeyUsage: readonly string[] | undefined;
  readonly altNames: readonly AltName[];
  /** The subjectAltName extension's value, to tell certificates apart as Go does; undefined when absent. */
  readonly altNamesDer: Uint8Array | undefined;
  readonly nameConstraints: NameConstraints | undefined;
  /** policyConstraints with requireExplicitPolicy: the path below needs certificate policies. */
  readonly requiresExplicitPolicy: boolean;
  /** policyMappings that map anyPolicy, or map a policy to it (which RFC 5280 forbids). */
  readonly mapsAnyPolicy: boolean;
  /** OIDs of critical extensions this check does not understand. */
  readonly unhandledCritical: readonly string[];
}

const EXT_SUBJECT_ALT_NAME = "2.5.29.17";
const EXT_BASIC_CONSTRAINTS = "2.5.29.19";
const EXT_KEY_USAGE = "2.5.29.15";
const EXT_EXT_KEY_USAGE = "2.5.29.37";
const EXT_NAME_CONSTRAINTS = "2.5.29.30";
const EXT_CRL_DISTRIBUTION_POINTS = "2.5.29.31";
const EXT_CERTIFICATE_POLICIES = "2.5.29.32";
const EXT_POLICY_MAPPINGS = "2.5.29.33";
const EXT_POLICY_CONSTRAINTS = "2.5.29.36";
const EXT_INHIBIT_ANY_POLICY = "2.5.29.54";
const ANY_POLICY = "2.5.29.32.0";

/** Extensions of a certificate that has none. */
export const NO_EXTENSIONS: CertificateExtensions = {
  isCa: undefined,
  pathLength: undefined,
  keyCertSign: undefined,
  extKeyUsage: undefined,
  altNames: [],
  altNamesDer: undefined,
  nameConstraints: undefined,
  requiresExplicitPolicy: false,
  mapsAnyPolicy: false,
  unhandledCritical: [],
};

/**
 * Reads the Extensions SEQUENCE of a certificate.
 * @throws {SyntaxError} when an extension appears twice, or one read here is malformed.
 */
export function readExtensions(der: Uint8Array, list: Element): CertificateExtensions {
  const out: { -readonly [K in keyof CertificateExtensions]: CertificateExtensions[K] } = {
    ...NO_EXTENSIONS,
  };
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
      case EXT_SUBJECT_ALT_NAME: {
        const seq = inner.next(Tag.SEQUENCE);
        const { names, understood } = readAltNames(der, seq);
        out.altNames = names;
        out.altNamesDer = der.subarray(value.contentStart, value.end);
        if (critical && !understood) unhandled.push(oid);
        break;
      }
      case EXT_NAME_CONSTRAINTS: {
        const { constraints, understood } = readNameConstraints(der, inner.next(Tag.SEQUENCE));
        out.nameConstraints = constraints;
        if (critical && !understood) unhandled.push(oid);
        break;
      }
      case EXT_POLICY_MAPPINGS: {
        const seq = DerReader.inside(der, inner.next(Tag.SEQUENCE));
        while (!seq.done) {
          const pair = DerReader.inside(der, seq.next(Tag.SEQUENCE));
          const from = readOid(der, pair.next(Tag.OID));
          const to = readOid(der, pair.next(Tag.OID));
          pair.finish("a policy mapping");
          if (from === ANY_POLICY || to === ANY_POLICY) out.mapsAnyPolicy = true;
        }
        break;
      }
      case EXT_POLICY_CONSTRAINTS: {
        const seq = DerReader.inside(der, inner.next(Tag.SEQUENCE));
        if (seq.peekTag() === 0x80) {
          out.requiresExplicitPolicy = true;
          seq.next();
        }
        if (seq.peekTag() === 0x81) seq.next(); // inhibitPolicyMapping: it only narrows what mappings do
        seq.finish("policyConstraints");
        break;
      }
      case EXT_CERTIFICATE_POLICIES:
      case EXT_CRL_DISTRIBUTION_POINTS:
        // Read by Go, and not part of its verdict unless a policy constraint asks for them.
        inner.next(Tag.SEQUENCE);
        break;
      case EXT_INHIBIT_ANY_POLICY:
        readSmallInteger(der, inner.next(Tag.INTEGER));
        break;
      default:
        if (critical) unhandled.push(oid);
        continue;
    }
    inner.finish(`extension ${oid}`);
  }
  out.unhandledCritical = unhandled;
  return out;
}
