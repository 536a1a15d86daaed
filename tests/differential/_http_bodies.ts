/**
 * Response bodies for the HTTP differential test: the framing header lines (Content-Length,
 * Transfer-Encoding, Content-Encoding) and the bytes sent after the head, with each kind of framing
 * fault now and then: wrong or repeated lengths, unsupported codings, chunk extensions and trailers,
 * bare line feeds, corrupt or padded gzip.
 */
import { gzipMember } from "./_gzip_member.ts";
import type { Tags } from "./_http_heads.ts";
import { join, latin1, type Picker } from "./_picker.ts";

/** The framing header lines of a response and the bytes that follow its head. */
export interface Framed {
  readonly lines: string[];
  readonly body: Uint8Array;
}

/** `content` framed as a response body of an HTTP/1.`minor` response. */
export async function framedBody(r: Picker, tags: Tags, content: Uint8Array, minor: number): Promise<Framed> {
  const lines: string[] = [];
  let wire = content;
  if (content.length > 0 && r.chance(0.2)) {
    const coding = r.chance(0.85) ? "gzip" : r.pick(["GZIP", "Gzip", "x-gzip", " gzip ", "gzip, identity"]);
    if (coding === "x-gzip") tags.add("x-gzip");
    lines.push(`Content-Encoding: ${coding}`);
    wire = await gzipBody(r, tags, content);
  } else if (r.chance(0.02)) {
    lines.push("Content-Encoding: gzip"); // but the body is not gzip
  }
  const kind = r.pick(["length", "length", "length", "chunked", "chunked", "chunked", "close", "both"]);
  if (kind === "length" || kind === "both") lines.push(...contentLength(r, wire.length));
  if (kind === "chunked" || kind === "both") {
    lines.push(...transferEncoding(r));
    if (minor === 0) tags.add("te in http/1.0");
  }
  let body = kind === "chunked" || kind === "both" ? chunked(r, tags, wire) : wire;
  // A declared length that is wrong by a little: a truncated body, or bytes left over.
  if (kind === "length" && r.chance(0.05)) {
    body = r.chance(0.5) ? body.subarray(0, r.int(0, body.length)) : join([body, r.bytes(r.int(1, 20))]);
  }
  return { lines, body };
}

function contentLength(r: Picker, n: number): string[] {
  if (r.chance(0.9)) return [`Content-Length: ${n}`];
  switch (r.int(0, 6)) {
    case 0:
      return [`Content-Length: ${"0".repeat(r.int(1, 20))}${n}`];
    case 1:
      return [`Content-Length: ${n}`, `Content-Length: ${n}`];
    case 2:
      return [`Content-Length: ${n}`, `Content-Length: ${n + 1}`];
    case 3:
      return [`Content-Length: ${n}, ${n}`];
    case 4:
      return [
        `Content-Length: ${r.pick([`+${n}`, "-1", `0x${n.toString(16)}`, `${n} ${n}`, "", `${n}\u00a0`])}`,
      ];
    case 5:
      return [
        `Content-Length: ${r.pick(["99999999999999999999", "9223372036854775807", "9223372036854775808"])}`,
      ];
    default:
      return [`Content-Length:${r.pick(["", "\t", "   "])}${n}${r.pick(["", " ", "\t"])}`];
  }
}

function transferEncoding(r: Picker): string[] {
  if (r.chance(0.85)) return ["Transfer-Encoding: chunked"];
  const value = r.pick([
    "Chunked",
    "CHUNKED",
    "chunked ",
    "gzip, chunked",
    "identity",
    "chunked, chunked",
    "",
    "x",
  ]);
  return r.chance(0.2)
    ? ["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"]
    : [`Transfer-Encoding: ${value}`];
}

/** `data` in the chunked coding, sometimes with extensions, trailers, or one framing fault. */
function chunked(r: Picker, tags: Tags, data: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  const fault = r.chance(0.05) ? r.int(0, 7) : -1;
  const faultAt = r.int(0, 3);
  let index = 0;
  for (let at = 0; at < data.length; index++) {
    const size = Math.min(data.length - at, r.chance(0.3) ? r.int(1, 4) : r.int(1, 4096));
    let hex = size.toString(16);
    if (r.chance(0.1)) hex = hex.toUpperCase();
    if (r.chance(0.05)) hex = hex.padStart(r.chance(0.9) ? r.int(hex.length, 16) : 17, "0");
    let line = hex + extension(r);
    let afterData = "\r\n";
    if (fault >= 0 && index === faultAt) {
      if (fault === 0) line = `${hex} ;x`;
      else if (fault === 1) line = `${hex} \t`;
      else if (fault === 2) line = `${hex} junk`;
      else if (fault === 3) afterData = r.pick(["\n", "", "XY", "\r"]);
      else if (fault === 4) line = `${hex}\r;x`;
    }
    const lineEnd = fault === 5 && index === faultAt ? "\n" : "\r\n";
    parts.push(latin1(line + lineEnd), data.subarray(at, at + size), latin1(afterData));
    at += size;
  }
  let last = r.pick(["0", "0", "0", "000", "0;ext=1"]) + "\r\n";
  if (r.chance(0.1)) last += trailer(r, tags);
  if (fault !== 6) last += "\r\n";
  parts.push(latin1(last));
  return join(parts);
}

function extension(r: Picker): string {
  if (!r.chance(0.05)) return "";
  return r.pick([
    ";a=b",
    ";x",
    ';q="s t"',
    `;${"e".repeat(r.int(100, 300))}`,
    `;${"e".repeat(r.int(4090, 4200))}`,
  ]);
}

/** Trailer lines (without the blank line that ends them). */
function trailer(r: Picker, tags: Tags): string {
  switch (r.int(0, 7)) {
    case 0:
      tags.add("obs-fold");
      return "X-T: a\r\n folded\r\n";
    case 1:
      tags.add("bare LF in trailer");
      return "X-A: 1\nX-B: 2\r\n";
    case 2:
      return "X@: v\r\n";
    case 3:
      tags.add("space in name");
      return "X T: v\r\n";
    case 4:
      return "X-Ctl: a\x01b\r\n";
    case 5:
      return `X-Big: ${"t".repeat(r.int(4000, 5000))}\r\n`;
    default:
      return "X-Checksum: abc\r\nX-Other: 1\r\n";
  }
}

/** `content` gzipped as one or two members with assorted header fields; sometimes corrupt. */
async function gzipBody(r: Picker, tags: Tags, content: Uint8Array): Promise<Uint8Array> {
  const split = r.chance(0.2) ? r.int(0, content.length) : content.length;
  const pieces = split === content.length ? [content] : [content.subarray(0, split), content.subarray(split)];
  const members: Uint8Array[] = [];
  for (const piece of pieces) {
    const longName = r.chance(0.02);
    if (longName) tags.add("gzip long name");
    const reserved = r.chance(0.01);
    members.push(
      await gzipMember(piece, {
        ...(r.chance(0.1) || longName
          ? { name: r.bytes(longName ? 520 : r.int(1, 30)).map((b) => b || 65) }
          : {}),
        ...(r.chance(0.05) ? { comment: latin1("a comment") } : {}),
        ...(r.chance(0.05) ? { extra: r.bytes(r.int(0, 20)) } : {}),
        ...(r.chance(0.05) ? { headerCrc: r.chance(0.8) ? "right" as const : "wrong" as const } : {}),
        ...(reserved ? { reservedFlag: true } : {}),
      }),
    );
  }
  let out = join(members);
  const fault = r.chance(0.12) ? r.int(0, 2) : -1;
  if (fault === 0) {
    out = out.slice();
    const at = r.int(0, out.length - 1);
    out[at]! ^= 1 << r.int(0, 7);
  } else if (fault === 1) {
    out = out.subarray(0, r.int(0, out.length - 1));
  } else if (fault === 2) {
    out = join([out, r.chance(0.5) ? new Uint8Array(r.int(1, 8)) : r.bytes(r.int(1, 8))]);
  }
  // A reserved flag bit, set on purpose or by the corruption, is refused by us and ignored by Go.
  for (let at = 0; at + 3 < out.length; at++) {
    if (out[at] === 0x1f && out[at + 1] === 0x8b && out[at + 2] === 8 && (out[at + 3]! & 0xe0) !== 0) {
      tags.add("gzip reserved flag");
    }
  }
  return out;
}
