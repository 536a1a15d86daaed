/**
 * The search for a signature path from a server certificate to a trust anchor, private to
 * server_certificate.ts: depth-first through the presented intermediates, every link checked by
 * signature (never by name alone), every intermediate checked as a CA within its dates.
 * @module
 */
import type { Certificate } from "./certificate.ts";
import { sameBytes } from "./der_reader.ts";
import { signedBy, UnsupportedAlgorithmError } from "./signature.ts";

const MAX_DEPTH = 8;
const MAX_SIGNATURE_CHECKS = 32;

/** More signatures to check than any real chain needs: the presented chain is refused. */
export class ChainTooComplexError extends Error {}

/**
 * Finds a path from `leaf` to one of `anchors` through `intermediates` at time `now`.
 * @returns the certificates above the leaf, ending with the anchor; or, when there is none, why
 *   the closest candidate failed (to append to "unknown authority", possibly "").
 * @throws {ChainTooComplexError} after 32 signature checks.
 */
export async function findPath(
  leaf: Certificate,
  anchors: readonly Certificate[],
  intermediates: readonly Certificate[],
  now: number,
): Promise<{ path: Certificate[] } | { hint: string }> {
  const search = new PathSearch(anchors, intermediates, now);
  const path = await search.above(leaf, 0, 0, new Set());
  return path === undefined ? { hint: search.hint } : { path };
}

class PathSearch {
  readonly #anchors: readonly Certificate[];
  readonly #intermediates: readonly Certificate[];
  readonly #now: number;
  #checks = 0;
  hint = "";

  constructor(anchors: readonly Certificate[], intermediates: readonly Certificate[], now: number) {
    this.#anchors = anchors;
    this.#intermediates = intermediates;
    this.#now = now;
  }

  /**
   * The path above `cert`, or undefined. `below`: intermediates between the leaf and `cert`'s
   * issuer, for path length constraints; `used`: intermediates already on the path.
   */
  async above(
    cert: Certificate,
    depth: number,
    below: number,
    used: ReadonlySet<number>,
  ): Promise<Certificate[] | undefined> {
    for (const anchor of this.#anchors) {
      if (!sameBytes(cert.issuer, anchor.subject)) continue;
      if (!await this.#signed(cert, anchor)) {
        this.#note(" (a trusted CA has the issuer's name, but the signature is not from its key)");
        continue;
      }
      if (!this.#current(anchor)) {
        this.#note(" (the trusted CA certificate that issued it is expired or not valid yet)");
        continue;
      }
      return [anchor];
    }
    if (depth >= MAX_DEPTH) return undefined;
    for (const [i, candidate] of this.#intermediates.entries()) {
      if (used.has(i) || !sameBytes(cert.issuer, candidate.subject)) continue;
      const problem = this.#caProblem(candidate, below);
      if (problem !== undefined) {
        this.#note(` (intermediate certificate ${problem})`);
        continue;
      }
      if (!await this.#signed(cert, candidate)) continue;
      const selfIssued = sameBytes(candidate.issuer, candidate.subject);
      const rest = await this.above(
        candidate,
        depth + 1,
        below + (selfIssued ? 0 : 1),
        new Set([...used, i]),
      );
      if (rest !== undefined) return [candidate, ...rest];
    }
    return undefined;
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

  async #signed(cert: Certificate, issuer: Certificate): Promise<boolean> {
    if (++this.#checks > MAX_SIGNATURE_CHECKS) throw new ChainTooComplexError();
    try {
      return await signedBy(cert, issuer);
    } catch (err) {
      if (err instanceof UnsupportedAlgorithmError) this.#note(` (${err.message})`);
      return false;
    }
  }

  #note(hint: string): void {
    if (this.hint === "") this.hint = hint;
  }
}
