/**
 * Seeded HTTP/1.1 response byte streams for the differential test against Go's net/http: interim heads,
 * a status line, header fields, a body framed by Content-Length, chunked or the connection's close
 * (gzip inside sometimes), extra bytes after it, and the points where the server splits its writes.
 * Each case comes from its own seed, so one case can be replayed alone.
 */
import { framedBody } from "./_http_bodies.ts";
import { headerLines, interimHead, lineEnds, renderHead, statusLine, type Tags } from "./_http_heads.ts";
import { join, latin1, Picker } from "./_picker.ts";

/** One response stream and how the server sends it. */
export interface HttpCase {
  /** The seed the case was made from. */
  readonly seed: number;
  readonly method: "GET" | "HEAD";
  /** Everything the server sends, after which it closes the connection. */
  readonly bytes: Uint8Array;
  /** Offsets at which the server pauses and starts a new write (a new TCP segment, usually). */
  readonly cuts: readonly number[];
  /** Features that a known difference between the clients may be about. */
  readonly tags: ReadonlySet<string>;
}

const CODES = [
  ...Array<number>(12).fill(200),
  201,
  202,
  203,
  204,
  206,
  226,
  301,
  302,
  304,
  307,
  400,
  401,
  403,
  404,
  409,
  410,
  422,
  429,
  500,
  502,
  503,
  504,
  599,
  600,
  999,
];

/** The seed of case `index` of a run seeded with `runSeed`. */
export function caseSeed(runSeed: number, index: number): number {
  return (Math.imul(runSeed ^ 0x5bd1e995, 0x01000193) + Math.imul(index + 1, 0x9e3779b1)) >>> 0;
}

/** The case made from `seed`. */
export async function generateCase(seed: number): Promise<HttpCase> {
  const r = new Picker(seed);
  const tags: Tags = new Set();
  const method = r.chance(0.08) ? "HEAD" : "GET";
  const parts: Uint8Array[] = [];
  const interim = r.chance(0.85) ? 0 : r.chance(0.85) ? r.int(1, 3) : r.int(9, 11);
  if (interim > 8) tags.add("interim flood");
  for (let i = 0; i < interim; i++) parts.push(latin1(interimHead(r, tags)));

  const code = r.chance(0.005) ? 101 : r.pick(CODES);
  if (code === 101) tags.add("101");
  const minor = r.chance(0.1) ? 0 : 1;
  const content = r.bytes(r.chance(0.08) ? r.int(1_000, 20_000) : r.int(0, 200));
  const framed = await framedBody(r, tags, content, minor);
  const lines = headerLines(r, tags);
  for (const line of framed.lines) lines.splice(r.int(0, lines.length), 0, line);
  parts.push(latin1(renderHead(statusLine(r, tags, code, minor), lines, lineEnds(r))), framed.body);

  if (r.chance(0.15)) {
    parts.push(
      r.chance(0.5) ? latin1("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\ninjected") : r.bytes(r.int(1, 40)),
    );
  }
  let bytes = join(parts);
  if (r.chance(0.04) && bytes.length > 1) bytes = bytes.subarray(0, r.int(1, bytes.length - 1));
  return { seed, method, bytes, cuts: cutsFor(r, bytes), tags };
}

function cutsFor(r: Picker, bytes: Uint8Array): number[] {
  const cuts = new Set<number>();
  if (bytes.length < 2) return [];
  for (let n = r.int(0, 4); n > 0; n--) cuts.add(r.int(1, bytes.length - 1));
  if (r.chance(0.2)) {
    // Around the end of the first head, where a parser hands over to the body.
    const end = findBlankLine(bytes);
    for (let d = -3; d <= 2; d++) if (end + d > 0 && end + d < bytes.length) cuts.add(end + d);
  }
  if (r.chance(0.03)) { for (let at = 1; at < Math.min(bytes.length, 80); at++) cuts.add(at); }
  return [...cuts].sort((a, b) => a - b);
}

function findBlankLine(bytes: Uint8Array): number {
  for (let i = 1; i < bytes.length; i++) {
    if (bytes[i] === 10 && (bytes[i - 1] === 10 || (bytes[i - 1] === 13 && bytes[i - 2] === 10))) {
      return i + 1;
    }
  }
  return 0;
}

/** A readable rendering of a case's bytes for failure reports (at most `max` characters). */
export function describeBytes(bytes: Uint8Array, max = 600): string {
  let text = "";
  for (const b of bytes.subarray(0, max)) {
    text += b === 13
      ? "\\r"
      : b === 10
      ? "\\n\n"
      : b >= 32 && b < 127
      ? String.fromCharCode(b)
      : `\\x${b.toString(16).padStart(2, "0")}`;
  }
  return bytes.length > max ? `${text}… (${bytes.length} bytes)` : text;
}
