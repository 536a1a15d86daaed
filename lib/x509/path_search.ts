/**
 * The search for a signature path from a server certificate to a trust anchor, private to
 * server_certificate.ts: depth-first through the presented intermediates, every link checked by
 * signature (never by name alone), every CA on the way — the configured one included — checked by
 * path_validation.ts, and every complete path checked as a whole; a path that fails moves the
 * search on to the next candidate, so a chain is trusted when any of its paths is valid, as in Go.
 * @module
 */
import type { Certificate } from "./certificate.ts";
import { sameBytes } from "./der_reader.ts";
import { issuerProblem, pathProblem } from "./path_validation.ts";
import { signedBy, UnsupportedAlgorithmError } from "./signature.ts";

const MAX_INTERMEDIATES = 8;
const MAX_SIGNATURE_CHECKS = 32;

/** More signatures to check than any real chain needs: the presented chain is refused. */
export class ChainTooComplexError extends Error {}

/** What the search found: a path, or why none was found. */
export type SearchResult =
  /** The certificates above the leaf, ending with the anchor. */
  | { readonly path: Certificate[] }
  /**
   * No signature path at all: why the closest candidate failed, to append to "unknown authority"
   * (possibly "").
   */
  | { readonly hint: string }
  /** Signature paths, none of them valid as a whole: why the first one is not. */
  | { readonly invalid: string };

/**
 * Finds a valid path from `leaf` to one of `anchors` through `intermediates` at time `now`.
 * @throws {ChainTooComplexError} after 32 signature checks.
 */
export async function findPath(
  leaf: Certificate,
  anchors: readonly Certificate[],
  intermediates: readonly Certificate[],
  now: number,
): Promise<SearchResult> {
  const search = new PathSearch(anchors, intermediates, now);
  const path = await search.above([leaf]);
  if (path !== undefined) return { path: path.slice(1) };
  return search.invalid !== undefined ? { invalid: search.invalid } : { hint: search.hint };
}

class PathSearch {
  readonly #anchors: readonly Certificate[];
  readonly #intermediates: readonly Certificate[];
  readonly #now: number;
  #checks = 0;
  hint = "";
  invalid: string | undefined;

  constructor(anchors: readonly Certificate[], intermediates: readonly Certificate[], now: number) {
    this.#anchors = anchors;
    this.#intermediates = intermediates;
    this.#now = now;
  }

  /** A valid path that extends `chain` (the leaf, then intermediates) to an anchor, or undefined. */
  async above(chain: readonly Certificate[]): Promise<Certificate[] | undefined> {
    const cert = chain[chain.length - 1]!;
    const below = chain.length - 1;
    for (const anchor of this.#anchors) {
      if (!sameBytes(cert.issuer, anchor.subject) || onPath(anchor, chain)) continue;
      if (!await this.#signed(cert, anchor)) {
        this.#note(" (a trusted CA has the issuer's name, but the signature is not from its key)");
        continue;
      }
      const problem = issuerProblem(anchor, true, below, this.#now);
      if (problem !== undefined) {
        this.#note(` (the trusted CA certificate ${problem})`);
        continue;
      }
      const path = [...chain, anchor];
      const invalid = pathProblem(path);
      if (invalid === undefined) return path;
      this.invalid ??= invalid;
    }
    if (below >= MAX_INTERMEDIATES) {
      this.#note(` (no path with at most ${MAX_INTERMEDIATES} intermediates)`);
      return undefined;
    }
    for (const candidate of this.#intermediates) {
      if (!sameBytes(cert.issuer, candidate.subject) || onPath(candidate, chain)) continue;
      const problem = issuerProblem(candidate, false, below, this.#now);
      if (problem !== undefined) {
        this.#note(` (intermediate certificate ${problem})`);
        continue;
      }
      if (!await this.#signed(cert, candidate)) continue;
      const path = await this.above([...chain, candidate]);
      if (path !== undefined) return path;
    }
    return undefined;
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

/**
 * Whether a certificate of the same subject, key and subjectAltName is on `chain` already, as Go
 * decides it: a path never passes the same CA twice (cross-signatures cannot make loops), and a
 * re-issued copy of a CA certificate never chains to that CA.
 */
function onPath(candidate: Certificate, chain: readonly Certificate[]): boolean {
  return chain.some((c) =>
    sameBytes(c.subject, candidate.subject) && sameBytes(c.spki, candidate.spki) &&
    (c.altNamesDer === undefined || candidate.altNamesDer === undefined
      ? c.altNamesDer === candidate.altNamesDer
      : sameBytes(c.altNamesDer, candidate.altNamesDer))
  );
}
