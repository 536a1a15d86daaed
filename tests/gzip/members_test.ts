// The gzip framing around DEFLATE: members one after another, optional header fields, the trailer's
// checks, and what may (not) come after a member.
import assert from "node:assert/strict";
import { crc32, deflateRawSync, gzipSync } from "node:zlib";
import { GzipDecoder } from "../../lib/gzip/members.ts";
import { InflateError } from "../../lib/gzip/inflate.ts";
import { gzipMember, PLAIN_HEADER } from "../http/_deflate_writer.ts";
import { concat, enc, gzip as compressionStreamGzip, splits } from "../http/_helpers.ts";

const KiB = 1024;
const MiB = 1024 * KiB;
const FTEXT = 1, FHCRC = 2, FEXTRA = 4, FNAME = 8, FCOMMENT = 16;

/** Decodes `data` pushed in `chunk`-byte pieces and says the input has ended. */
function gunzip(data: Uint8Array, chunk = Math.max(data.length, 1)): Uint8Array {
  return gunzipPieces(pieces(data, chunk));
}

function gunzipPieces(input: Uint8Array[]): Uint8Array {
  const decoder = new GzipDecoder();
  const parts: Uint8Array[] = [];
  for (const piece of input) {
    decoder.push(piece);
    for (let out = decoder.read(); out !== null; out = decoder.read()) parts.push(out);
  }
  decoder.finish();
  return concat(...parts);
}

function pieces(data: Uint8Array, chunk: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += chunk) out.push(data.subarray(at, at + chunk));
  return out;
}

function gzipBytes(data: Uint8Array, level = 6): Uint8Array {
  return new Uint8Array(gzipSync(data, { level }));
}

/** A copy of `bytes` with `mask` XORed into the byte at `at` (negative: from the end). */
function flip(bytes: Uint8Array, at: number, mask: number): Uint8Array {
  const out = bytes.slice();
  const i = at < 0 ? out.length + at : at;
  out[i] = out[i]! ^ mask;
  return out;
}

function json(n: number): Uint8Array {
  const items = Array.from({ length: Math.ceil(n / 60) }, (_, i) => `{"name":"cm-${i}","rv":"${i * 13}"}`);
  return enc.encode(items.join(",")).subarray(0, n);
}

/** Fails unless decoding `data` (whole, and a byte at a time) throws an InflateError matching `reason`. */
function assertInvalid(data: Uint8Array, reason: RegExp): void {
  for (const chunk of [data.length, 1]) {
    assert.throws(() => gunzip(data, chunk), (err: unknown) => {
      assert.ok(err instanceof InflateError, String(err));
      assert.match(err.message, reason);
      return true;
    });
  }
}

/** A gzip header with the given flags and fields; `hcrc` replaces the right header CRC. */
function header(
  flags: number,
  fields: { extra?: Uint8Array; name?: string; comment?: string; hcrc?: number } = {},
): number[] {
  const bytes = [0x1f, 0x8b, 8, flags, 0x78, 0x56, 0x34, 0x12, 0, 3];
  if (flags & FEXTRA) {
    const extra = fields.extra ?? new Uint8Array(0);
    bytes.push(extra.length & 255, extra.length >>> 8, ...extra);
  }
  if (flags & FNAME) bytes.push(...enc.encode(fields.name ?? ""), 0);
  if (flags & FCOMMENT) bytes.push(...enc.encode(fields.comment ?? ""), 0);
  if (flags & FHCRC) {
    const crc = fields.hcrc ?? crc32(Uint8Array.from(bytes)) & 0xffff;
    bytes.push(crc & 255, crc >>> 8);
  }
  return bytes;
}

Deno.test("an empty body decodes to nothing; a member of nothing too", () => {
  assert.deepEqual(gunzip(new Uint8Array(0)), new Uint8Array(0));
  assert.deepEqual(gunzip(gzipBytes(new Uint8Array(0))), new Uint8Array(0));
});

Deno.test("concatenated members, empty ones among them, decode to their data in order, split anyhow", async () => {
  const datas = [
    json(300),
    new Uint8Array(0),
    enc.encode("ü\n"),
    new Uint8Array(0),
    json(100 * KiB),
    json(5),
  ];
  const members = await Promise.all(
    datas.map((d, i) => i % 2 ? compressionStreamGzip(d) : Promise.resolve(gzipBytes(d, i))),
  );
  const body = concat(...members);
  const expected = concat(...datas);
  for (const chunk of [body.length, 65536, 4099, 7, 1]) {
    assert.deepEqual(gunzip(body, chunk), expected, `${chunk}`);
  }
  // Every cut of a small run of members.
  const small = concat(gzipBytes(json(200)), gzipBytes(new Uint8Array(0)), gzipBytes(enc.encode("x")));
  for (const cut of splits(small)) assert.deepEqual(gunzipPieces(cut), concat(json(200), enc.encode("x")));
});

Deno.test("header fields FTEXT, FEXTRA, FNAME, FCOMMENT and FHCRC are read and skipped", () => {
  const data = json(1000);
  const deflated = new Uint8Array(deflateRawSync(data));
  const fields = {
    extra: Uint8Array.from({ length: 300 }, (_, i) => i),
    name: "list.json",
    comment: "a comment",
  };
  for (let flags = 0; flags < 32; flags++) {
    const member = gzipMember(deflated, data, header(flags, fields));
    assert.deepEqual(gunzip(member), data, `flags ${flags}`);
    assert.deepEqual(gunzip(member, 1), data, `flags ${flags}, byte by byte`);
  }
  const all = gzipMember(deflated, data, header(FTEXT | FHCRC | FEXTRA | FNAME | FCOMMENT, fields));
  for (let cut = 1; cut < 400; cut++) {
    assert.deepEqual(gunzipPieces([all.subarray(0, cut), all.subarray(cut)]), data, `cut at ${cut}`);
  }
  // An empty extra field, name and comment.
  const empty = gzipMember(
    deflated,
    data,
    header(FEXTRA | FNAME | FCOMMENT | FHCRC, { name: "", comment: "" }),
  );
  assert.deepEqual(gunzip(empty, 1), data);
});

Deno.test("a wrong header CRC, reserved flags, another method or bad magic fail", () => {
  const data = enc.encode("hello");
  const deflated = new Uint8Array(deflateRawSync(data));
  const good = header(FHCRC | FNAME, { name: "x" });
  const bad = header(FHCRC | FNAME, { name: "x", hcrc: (good.at(-2)! | good.at(-1)! << 8) ^ 1 });
  assertInvalid(gzipMember(deflated, data, bad), /^header CRC mismatch$/);
  for (const flag of [0x20, 0x40, 0x80]) {
    assertInvalid(gzipMember(deflated, data, header(flag)), /^reserved header flags set$/);
  }
  const method = [...PLAIN_HEADER];
  method[2] = 7;
  assertInvalid(gzipMember(deflated, data, method), /^unknown compression method$/);
  assertInvalid(gzipMember(deflated, data, [0x1e, ...PLAIN_HEADER.slice(1)]), /^not gzip data$/);
  assertInvalid(gzipMember(deflated, data, [0x1f, 0x8c, ...PLAIN_HEADER.slice(2)]), /^not gzip data$/);
  assertInvalid(enc.encode('{"kind":"Status"}'), /^not gzip data$/);
});

Deno.test("a wrong CRC-32 or length in the trailer fails", () => {
  const member = gzipBytes(json(5000));
  for (let i = 0; i < 4; i++) {
    assertInvalid(flip(member, -8 + i, 0x10), /^CRC-32 mismatch$/);
    assertInvalid(flip(member, -4 + i, 0x01), /^length mismatch$/);
  }
  // A corrupt second member fails after the first member's data came out.
  assertInvalid(concat(member, flip(gzipBytes(enc.encode("second")), -5, 1)), /^CRC-32 mismatch$/);
});

Deno.test("anything after a member other than another member fails", () => {
  const member = gzipBytes(json(2000));
  assertInvalid(concat(member, new Uint8Array([0])), /^trailing data after a gzip member$/);
  assertInvalid(concat(member, new Uint8Array(8)), /^trailing data after a gzip member$/);
  assertInvalid(concat(member, enc.encode("\n")), /^trailing data after a gzip member$/);
  assertInvalid(concat(member, new Uint8Array([0x1f, 0])), /^not gzip data$/);
  assertInvalid(concat(member, new Uint8Array([0x1f])), /^unexpected end of data$/);
});

Deno.test("data ending inside a member fails at every point: header, data or trailer", () => {
  const member = concat(
    gzipMember(
      new Uint8Array(deflateRawSync(json(3000))),
      json(3000),
      header(FEXTRA | FNAME | FHCRC, { name: "n" }),
    ),
    gzipBytes(enc.encode("two")),
  );
  const firstEnd = member.length - gzipBytes(enc.encode("two")).length;
  for (let cut = 1; cut < member.length; cut++) {
    if (cut === firstEnd) {
      assert.deepEqual(gunzip(member.subarray(0, cut)), json(3000));
      continue;
    }
    assert.throws(
      () => gunzip(member.subarray(0, cut), 64),
      /^InflateError: unexpected end of data$/,
      `cut ${cut}`,
    );
  }
});

Deno.test("a bomb member comes out one slice of at most 16 KiB per read, without more input", () => {
  const bomb = gzipBytes(new Uint8Array(16 * MiB), 9);
  const decoder = new GzipDecoder();
  decoder.push(bomb);
  let total = 0;
  let reads = 0;
  for (let out = decoder.read(); out !== null; out = decoder.read()) {
    assert.ok(out.length <= 16 * KiB);
    total += out.length;
    reads++;
  }
  decoder.finish();
  assert.equal(total, 16 * MiB);
  assert.ok(reads >= 1024);
});

Deno.test("a decoder that failed refuses further use", () => {
  const decoder = new GzipDecoder();
  decoder.push(new Uint8Array([0x1f, 0x8b, 9]));
  assert.throws(() => decoder.read(), InflateError);
  assert.throws(() => decoder.read(), TypeError);
  const ended = new GzipDecoder();
  ended.push(new Uint8Array([0x1f]));
  assert.equal(ended.read(), null);
  assert.throws(() => ended.finish(), /unexpected end of data/);
});
