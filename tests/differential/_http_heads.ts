/**
 * Response heads for the HTTP differential test: status lines and header fields, mostly valid, with
 * each kind of malformation now and then. A malformation that the two clients may judge differently
 * on purpose adds a tag (see _http_known_differences.ts).
 */
import type { Picker } from "./_picker.ts";

/** Where a case records the features a known difference may be about. */
export type Tags = Set<string>;

/** A status line for `code`; `minor` is the HTTP/1.x minor version. */
export function statusLine(r: Picker, tags: Tags, code: number, minor: number): string {
  let version = `HTTP/1.${minor}`;
  let sep = " ";
  let codeText = String(code);
  let reason = r.pick(["OK", "", "Created", "Whatever you like", "caf\u00e9", "a\tb", "Not Found"]);
  if (r.chance(0.02)) {
    version = r.pick(["HTTP/1.2", "HTTP/2.0", "HTTP/0.9", "HTTP/1.10", "http/1.1", "HTTP/1", "HTTP/11"]);
    tags.add("status line");
  }
  if (r.chance(0.015)) {
    sep = r.pick(["  ", "\t", "   "]);
    tags.add("status line");
  }
  if (r.chance(0.02)) {
    codeText = r.pick(["099", "000", "+20", "2000", "20", "2O0", "-20", "0200"]);
    tags.add("status line");
  }
  if (r.chance(0.01)) {
    reason += "\0x";
    tags.add("status line");
  }
  if (reason === "" && r.chance(0.5)) return `${version}${sep}${codeText}`;
  return `${version}${sep}${codeText} ${reason}`;
}

const NAMES = [
  "Content-Type",
  "Cache-Control",
  "Audit-Id",
  "X-Kubernetes-Pf-Flowschema-Uid",
  "Date",
  "Warning",
  "Link",
  "Vary",
  "x-lower",
  "X-Odd!#$%&'*+-.^_`|~",
];
const VALUES = [
  "application/json",
  "no-cache, private",
  "2f1c5a0e-1b2c-4d5e-8f90-a1b2c3d4e5f6",
  "Mon, 01 Dec 2026 10:00:00 GMT",
  '299 - "deprecated API"',
  "</a>; rel=preload",
  "",
  "  padded\t",
  "latin-1 \u00e9\u00ff",
  "a, b ,c",
];

/** Ordinary header lines, sometimes with one malformed line among them. */
export function headerLines(r: Picker, tags: Tags): string[] {
  const lines: string[] = [];
  for (let n = r.int(0, 5); n > 0; n--) {
    lines.push(`${r.pick(NAMES)}:${r.pick([" ", "", "  ", "\t"])}${r.pick(VALUES)}`);
  }
  if (r.chance(0.08)) {
    const at = r.int(0, lines.length);
    const kind = r.int(0, 8);
    let line: string;
    if (kind === 0) {
      line = `X-Ctl: a${String.fromCharCode(r.pick([1, 8, 11, 12, 27, 31, 127]))}b`;
    } else if (kind === 1) {
      line = "X-Cr: a\rb";
    } else if (kind === 2) {
      line = `${r.pick(["X Foo", "X-Foo ", "X-Foo\t"])}: v`;
      tags.add("space in name");
    } else if (kind === 3) {
      line = `${r.pick(["X@Y", "X(Y)", "X\u00e9", "X/Y", "[X]"])}: v`;
    } else if (kind === 4) {
      line = r.pick([": v", "NoColon", "  : v"]);
      // Leading white space continues the line before (obs-fold), unless it ends up first.
      if (line.startsWith(" ")) tags.add("obs-fold");
    } else if (kind === 5) {
      line = `X-Nul: a\0b`;
    } else if (kind === 6 && lines.length > 0 && at > 0) {
      line = `${r.pick([" ", "\t", "  "])}continued`;
      tags.add("obs-fold");
    } else if (kind === 7) {
      line = `X-Obs-Text: ${String.fromCharCode(r.int(0x80, 0xff))}${String.fromCharCode(r.int(0x80, 0xff))}`;
    } else {
      line = `X-Big: ${"b".repeat(r.pick([1_000, 70_000]))}`;
      if (line.length > 60_000) tags.add("big head");
    }
    lines.splice(at, 0, line);
  }
  return lines;
}

/** Line ends for one head: CRLF mostly, bare LF, or a mix with the odd CR CR LF. */
export function lineEnds(r: Picker): () => string {
  const style = r.chance(0.85) ? "crlf" : r.chance(0.6) ? "lf" : "mixed";
  return () => style === "crlf" ? "\r\n" : style === "lf" ? "\n" : r.pick(["\r\n", "\n", "\r\r\n"]);
}

/** The text of a head: status line, lines, blank line. */
export function renderHead(status: string, lines: readonly string[], end: () => string): string {
  let text = status + end();
  for (const line of lines) text += line + end();
  // The blank line is never CR CR LF, which would be a malformed header line rather than the end.
  const last = end();
  return text + (last === "\r\r\n" ? "\r\n" : last);
}

/** An interim (1xx) head, sometimes with framing headers it must not act on. */
export function interimHead(r: Picker, tags: Tags): string {
  const code = r.pick([100, 100, 102, 103, 199]);
  const lines = r.chance(0.3) ? ["Link: </style.css>; rel=preload"] : [];
  if (r.chance(0.1)) {
    lines.push(r.pick(["Content-Length: 5", "Content-Length: x", "Transfer-Encoding: chunked"]));
  }
  return renderHead(statusLine(r, tags, code, 1), lines, () => "\r\n");
}
