import { certificateMatchesName, describeNames } from "./name_match.ts";
import { type Certificate, parseCertificate, pemCertificates } from "./certificate.ts";
import { sameBytes } from "./der_reader.ts";
import { ChainTooComplexError, findPath } from "./path_search.ts";

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

/** A chain that passed `checkChain`, and the time window in which every certificate on its path is valid. */
export interface VerifiedChain {
  readonly leaf: Certificate;
  readonly notBefore: number;
  readonly notAfter: number;
}

/**
 * Decides whether `presented` (the server's chain as DER, leaf first, then any certificates it
 * sent, in any order) is trusted for `name` at time `now`, using only `anchors`:
 * - the leaf must be one of the anchors exactly, or chain to one: each link is checked by
 *   signature, not by name, through at most 8 presented intermediates. Every CA on the path, the
 *   configured anchor included, is held to RFC 5280 path validation as Go's crypto/x509 applies it
 *   (path_validation.ts): a CA (basicConstraints cA; a v1 anchor is accepted), keyCertSign when it
 *   has key usage, its path length, its dates, no critical extension this check does not
 *   understand, serverAuth when it limits extended key usage, its name constraints on every name
 *   below it; certificate policies that could refuse the path are refused, unprocessed. When one
 *   path fails, the others are tried;
 * - the leaf must be within its validity dates, be X.509 v3 (Deno's TLS skips the handshake
 *   signature check for the v1 certificates it cannot read, so a v1 leaf would not prove that the
 *   server holds its key), have no critical extension this check does not understand, and allow
 *   server authentication when it limits its extended key usage;
 * - the leaf's subjectAltName must name `name` (see `certificateMatchesName`).
 * Anything unexpected (no certificate, a malformed one, too many, an unknown signature algorithm)
 * refuses the chain.
 * @throws {ServerCertificateError} saying why the chain is refused.
 */
export async function verifyServerCertificate(
  presented: readonly Uint8Array[],
  anchors: TrustAnchors,
  name: string,
  now: number,
): Promise<void> {
  checkName((await checkChain(presented, anchors, now)).leaf, name);
}

/**
 * `verifyServerCertificate` with a memory of the leaf certificates it has trusted (their exact
 * bytes, a few at most). A remembered leaf was issued, by signature, under a configured CA, so
 * when the same bytes come again only the validity window of its path and the name are checked:
 * neither the rest of the chain is read nor any signature checked again (with WebCrypto in Deno
 * 2.9.6, an ECDSA P-256 signature costs about 0.3 ms and an RSA-2048 one about 0.2 ms; a chain of
 * the two, about 0.55 ms: bench/chain_check_bench.ts). That the server holds the leaf's key is
 * proven by the TLS handshake itself, on every connection.
 */
export class ServerCertificateVerifier {
  readonly #anchors: TrustAnchors;
  readonly #known: { leaf: Uint8Array; chain: VerifiedChain }[] = [];

  constructor(anchors: TrustAnchors) {
    this.#anchors = anchors;
  }

  /**
   * Checks the chain whose leaf is `leaf`; `chain()` returns the whole presented chain (leaf first)
   * and is called only when the leaf is not remembered, synchronously within this call (before its
   * first wait).
   * @throws {ServerCertificateError} as `verifyServerCertificate`.
   */
  async verify(
    leaf: Uint8Array,
    chain: () => readonly Uint8Array[],
    name: string,
    now: number,
  ): Promise<void> {
    const known = this.#recall(leaf, now);
    if (known !== undefined) {
      checkName(known.leaf, name);
      return;
    }
    const presented = chain();
    if (presented.length === 0 || !sameBytes(presented[0]!, leaf)) {
      throw new ServerCertificateError("the server's certificate chain does not start with its certificate");
    }
    const verified = await checkChain(presented, this.#anchors, now);
    this.#remember(leaf, verified);
    checkName(verified.leaf, name);
  }

  /**
   * Whether `leaf` on its own is trusted for `name` at `now`, for a TLS stack that reports only the
   * server's certificate: it was remembered from an earlier check of a whole chain (and every
   * certificate on that path is within its dates), or a configured CA issued it directly (checked as
   * `verifyServerCertificate` does, with no intermediates; remembered then). False means that the
   * whole chain is needed to decide, or that the answer is no: ask `verify`, which says why.
   */
  async trustsLeaf(leaf: Uint8Array, name: string, now: number): Promise<boolean> {
    const known = this.#recall(leaf, now);
    if (known !== undefined) return certificateMatchesName(known.leaf, name);
    let verified: VerifiedChain;
    try {
      verified = await checkChain([leaf], this.#anchors, now);
    } catch {
      return false;
    }
    this.#remember(leaf, verified);
    return certificateMatchesName(verified.leaf, name);
  }

  /** The remembered chain of exactly these bytes, if every certificate on its path is valid at `now`. */
  #recall(leaf: Uint8Array, now: number): VerifiedChain | undefined {
    const chain = this.#known.find((k) => sameBytes(k.leaf, leaf))?.chain;
    return chain !== undefined && now >= chain.notBefore && now <= chain.notAfter ? chain : undefined;
  }

  #remember(leaf: Uint8Array, chain: VerifiedChain): void {
    const i = this.#known.findIndex((k) => sameBytes(k.leaf, leaf));
    if (i >= 0) this.#known.splice(i, 1);
    else if (this.#known.length === MAX_KNOWN) this.#known.shift();
    this.#known.push({ leaf: leaf.slice(), chain });
  }
}

const MAX_KNOWN = 4;

/** Everything but the name: see `verifyServerCertificate`. */
export async function checkChain(
  presented: readonly Uint8Array[],
  anchors: TrustAnchors,
  now: number,
): Promise<VerifiedChain> {
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
  let path: Certificate[] = [];
  if (!anchors.certificates.some((anchor) => sameBytes(anchor.der, leaf.der))) {
    let found;
    try {
      found = await findPath(leaf, anchors.certificates, parseIntermediates(presented), now);
    } catch (err) {
      if (!(err instanceof ChainTooComplexError)) throw err;
      throw new ServerCertificateError("server's certificate chain is too complex to verify");
    }
    if ("hint" in found) {
      throw new ServerCertificateError(`certificate signed by unknown authority${found.hint}`);
    }
    if ("invalid" in found) throw new ServerCertificateError(`certificate chain refused: ${found.invalid}`);
    path = found.path;
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
  // An empty list limits nothing, as in Go (RFC 5280 does not allow one).
  if (eku !== undefined && eku.length > 0 && !eku.includes(SERVER_AUTH) && !eku.includes(ANY_PURPOSE)) {
    throw new ServerCertificateError(
      "server certificate is not for server authentication (its extended key usage excludes serverAuth)",
    );
  }
  const all = [leaf, ...path];
  return {
    leaf,
    notBefore: Math.max(...all.map((c) => c.notBefore)),
    notAfter: Math.min(...all.map((c) => c.notAfter)),
  };
}

function checkName(leaf: Certificate, name: string): void {
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

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}
