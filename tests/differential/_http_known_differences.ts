/**
 * Where our HTTP/1.1 client deliberately judges a response differently from Go's net/http, each with
 * the tag the case generator sets and what our client must do there; docs/security.md lists them with
 * their reasons. A mismatch on a case without the tag, or with another outcome, is unexplained.
 */
import type { HttpCase } from "./_http_cases.ts";
import type { Verdict } from "./_http_differential.ts";

/** One argued difference. */
export interface KnownDifference {
  /** The generator's tag for the feature. */
  readonly tag: string;
  /** Whether the two verdicts are the difference described. */
  readonly matches: (ours: Verdict, go: Verdict) => boolean;
}

/** We refuse, with an error matching `pattern`, what Go accepts. */
function stricter(tag: string, pattern: RegExp): KnownDifference {
  return { tag, matches: (ours, go) => !ours.ok && go.ok && pattern.test(ours.error) };
}

/** The differences; all stricter on our side but the last two. */
export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  // Another HTTP version, several spaces or a tab between the parts, a status code with a sign or
  // below 100, a NUL in the reason phrase.
  stricter("status line", /malformed status line/),
  // Obsolete line folding, in the head or the trailers.
  stricter("obs-fold", /is folded \(obsolete line folding\)/),
  // A space or tab in a field name or before its colon.
  stricter("space in name", /invalid field name/),
  // 101 Switching Protocols though the client asked for no upgrade.
  stricter("101", /unexpected 101 Switching Protocols/),
  // More than 8 interim heads (Go bounds only their bytes, at 10 MB).
  stricter("interim flood", /more than 8 interim \(1xx\) responses/),
  // A head over maxHeaderBytes (64 KiB; Go's limit is 10 MB).
  stricter("big head", /larger than 65536 bytes/),
  // Transfer-Encoding in an HTTP/1.0 response (Go ignores the field).
  stricter("te in http/1.0", /Transfer-Encoding in an HTTP\/1\.0 response/),
  // A trailer line ending in a bare LF (Go accepts it when a CRLF CRLF follows within 4 KiB).
  stricter("bare LF in trailer", /trailer line is not terminated by CRLF/),
  // A reserved flag bit in a gzip header (RFC 1952 requires an error; Go ignores it).
  stricter("gzip reserved flag", /reserved header flags set/),
  // Content-Encoding x-gzip: we decode it as gzip (RFC 9110 section 8.4.1.3); Go's transport returns
  // the compressed bytes. Both accept with different bodies, or we refuse a corrupt one.
  {
    tag: "x-gzip",
    matches: (ours, go) => go.ok && (ours.ok || /Invalid gzip response body/.test(ours.error)),
  },
  // Laxer: a gzip header name or comment of 512 bytes or more, which Go refuses ("gzip: invalid
  // header", the size of its buffer); RFC 1952 sets no limit, and we skip the bytes without keeping them.
  {
    tag: "gzip long name",
    matches: (ours, go) => ours.ok && !go.ok && /gzip: invalid header/.test(go.error),
  },
];

/** The tag of the known difference that explains why `ours` and `go` differ on `c`, if one does. */
export function explain(c: HttpCase, ours: Verdict, go: Verdict): string | undefined {
  return KNOWN_DIFFERENCES.find((d) => c.tags.has(d.tag) && d.matches(ours, go))?.tag;
}
