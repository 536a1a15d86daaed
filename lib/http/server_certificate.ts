import { certificateMatchesName, describeNames } from "./_cert_name.ts";
import { type Certificate, parseCertificate, pemCertificates } from "./_certificate.ts";
import { sameBytes } from "./_der.ts";
import { signedBy, UnsupportedAlgorithmError } from "./_signature.ts";

/** The server's certificate chain was refused; the message says why, for a person to act on. */
export class ServerCertificateError extends Error {
  /** Always "ServerCertificateError". */
  override get name(): string {
    return "ServerCertificateError";
  }
}

/** The CA certificates a connection trusts, parsed once. */
export interface TrustAnchors {
  readonly certificates: readonly Certificate[];
}

/**
 * Parses configured CA certificates (each string may hold a PEM bundle).
 * @throws {TypeError} naming the entry that holds no certificate or one that cannot be parsed.
 */
export function parseTrustAnchors(caCerts: readonly string[]): TrustAnchors {
  const certificates: Certificate[] = [];
  caCerts.forEach((pem, i) => {
    const parsed = parseBundle(pem);
    if (typeof parsed === "string") throw new TypeError(`Invalid TLS options: caCerts[${i}] ${parsed}`);
    certificates.push(...parsed);
  });
  return { certificates };
}

/** What is wrong with a PEM CA bundle, e.g. "holds no PEM certificate"; undefined when it is usable. */
export function caBundleProblem(pem: string): string | undefined {
  const parsed = parseBundle(pem);
  return typeof parsed === "string" ? parsed : undefined;
}

function parseBundle(pem: string): Certificate[] | string {
  const ders = pemCertificates(pem);
  if (ders.length === 0) return "holds no PEM certificate";
  const out: Certificate[] = [];
  for (const [j, der] of ders.entries()) {
    try {
      out.push(parseCertificate(der));
    } catch (err) {
      return `has a certificate that cannot be parsed (number ${j + 1}): ${(err as Error).message}`;
    }
  }
  return out;
}

const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const ANY_PURPOSE = "2.5.29.37.0";
const MAX_PRESENTED = 16;
const MAX_DEPTH = 8;
const MAX_SIGNATURE_CHECKS = 32;

/**
 * Decides whether `presented` (the server's chain as DER, leaf first, then any certificates it
 * sent, in any order) is trusted for `name` at time `now`, using only `anchors`:
 * - the leaf must be one of the anchors exactly, or chain to one: each link is checked by
 *   signature, not by name, through at most 8 presented intermediates that are v3 CAs
 *   (basicConstraints CA:TRUE, keyCertSign when keyUsage is present, path length respected)
 *   within their validity dates; the anchor must be within its validity dates too;
 * - the leaf must be within its validity dates, be X.509 v3 (Deno's TLS skips the handshake
 *   signature check for the v1 certificates it cannot read, so a v1 leaf would not prove that the
 *   server holds its key), have no critical extension this check does not understand, and allow
 *   server authentication when it limits its extended key usage;
 * - the leaf's subjectAltName must name `name` (see `certificateMatchesName`).
 * Anything unexpected (no certificate, a malformed one, too many, an unknown signature algorithm)
 * refuses the chain.
 * @throws {ServerCertificateError} saying why the chain is refused.
 */
export function verifyServerCertificate(
  presented: readonly Uint8Array[],
  anchors: TrustAnchors,
  name: string,
  now: number,
): void {
  if (presented.length === 0) throw new ServerCertificateError("server presented no certificate");
  if (presented.length > MAX_PRESENTED) {
    throw new ServerCertificateError(`server sent more than ${MAX_PRESENTED} certificates`);
  }
  let leaf: Certificate;
  try {
    leaf = parseCertificate(presented[0]!);
  } catch (err) {
    throw new ServerCertificateError(`server certificate cannot be parsed: ${(err as Error).message}`);
  }
  if (!anchors.certificates.some((anchor) => sameBytes(anchor.der, leaf.der))) {
    const search = new PathSearch(anchors.certificates, parseIntermediates(presented), now);
    if (!search.reachesAnchor(leaf, 0, 0, new Set())) {
      throw new ServerCertificateError(`certificate signed by unknown authority${search.hint}`);
    }
  }
  if (leaf.version !== 3) {
    throw new ServerCertificateError(
      `server certificate is X.509 v${leaf.version}; only v3 certificates are accepted`,
    );
  }
  if (now > leaf.notAfter) {
    throw new ServerCertificateError(`server certificate has expired (valid until ${iso(leaf.notAfter)})`);
  }
  if (now < leaf.notBefore) {
    throw new ServerCertificateError(
      `server certificate is not valid yet (valid from ${iso(leaf.notBefore)})`,
    );
  }
  if (leaf.unhandledCritical.length > 0) {
    throw new ServerCertificateError(
      `server certificate has an unsupported critical extension ${leaf.unhandledCritical[0]}`,
    );
  }
  const eku = leaf.extKeyUsage;
  if (eku !== undefined && !eku.includes(SERVER_AUTH) && !eku.includes(ANY_PURPOSE)) {
    throw new ServerCertificateError(
      "server certificate is not for server authentication (its extended key usage excludes serverAuth)",
    );
  }
  if (!certificateMatchesName(leaf, name)) {
    throw new ServerCertificateError(
      `server certificate is not valid for the name "${name}" (it is valid for ${describeNames(leaf)})`,
    );
  }
}

/** The presented certificates after the leaf; ones that cannot be parsed cannot be used either. */
function parseIntermediates(presented: readonly Uint8Array[]): Certificate[] {
  const out: Certificate[] = [];
  for (const der of presented.slice(1)) {
    try {
      out.push(parseCertificate(der));
    } catch {
      // Unusable as an issuer; if the chain needs it, the search fails and says so.
    }
  }
  return out;
}

/** A depth-first search for a signature path from a certificate to an anchor. */
class PathSearch {
  readonly #anchors: readonly Certificate[];
  readonly #intermediates: readonly Certificate[];
  readonly #now: number;
  #checks = 0;
  /** Why the closest candidate failed, appended to "unknown authority". */
  hint = "";

  constructor(anchors: readonly Certificate[], intermediates: readonly Certificate[], now: number) {
    this.#anchors = anchors;
    this.#intermediates = intermediates;
    this.#now = now;
  }

  /** `below`: intermediates between the leaf and `cert`'s issuer, for path length constraints. */
  reachesAnchor(cert: Certificate, depth: number, below: number, used: ReadonlySet<number>): boolean {
    for (const anchor of this.#anchors) {
      if (!sameBytes(cert.issuer, anchor.subject)) continue;
      if (!this.#signed(cert, anchor)) {
        this.#note(" (a trusted CA has the issuer's name, but the signature is not from its key)");
        continue;
      }
      if (!this.#current(anchor)) {
        this.#note(" (the trusted CA certificate that issued it is expired or not valid yet)");
        continue;
      }
      return true;
    }
    if (depth >= MAX_DEPTH) return false;
    for (const [i, candidate] of this.#intermediates.entries()) {
      if (used.has(i) || !sameBytes(cert.issuer, candidate.subject)) continue;
      const problem = this.#caProblem(candidate, below);
      if (problem !== undefined) {
        this.#note(` (intermediate certificate ${problem})`);
        continue;
      }
      if (!this.#signed(cert, candidate)) continue;
      const selfIssued = sameBytes(candidate.issuer, candidate.subject);
      if (this.reachesAnchor(candidate, depth + 1, below + (selfIssued ? 0 : 1), new Set([...used, i]))) {
        return true;
      }
    }
    return false;
  }

  #caProblem(cert: Certificate, below: number): string | undefined {
    if (cert.version !== 3 || cert.isCa !== true) return "is not a CA";
    if (cert.keyCertSign === false) return "may not sign certificates";
    if (cert.pathLength !== undefined && below > cert.pathLength) return "exceeds its path length";
    if (!this.#current(cert)) return "is expired or not valid yet";
    if (cert.unhandledCritical.length > 0) {
      return `has an unsupported critical extension ${cert.unhandledCritical[0]}`;
    }
    return undefined;
  }

  #current(cert: Certificate): boolean {
    return this.#now >= cert.notBefore && this.#now <= cert.notAfter;
  }

  #signed(cert: Certificate, issuer: Certificate): boolean {
    if (++this.#checks > MAX_SIGNATURE_CHECKS) {
      throw new ServerCertificateError("server's certificate chain is too complex to verify");
    }
    try {
      return signedBy(cert, issuer);
    } catch (err) {
      if (err instanceof UnsupportedAlgorithmError) this.#note(` (${err.message})`);
      return false;
    }
  }

  #note(hint: string): void {
    if (this.hint === "") this.hint = hint;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}
