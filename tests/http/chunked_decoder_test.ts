import assert from "node:assert/strict";
import { ChunkedDecoder } from "../../lib/http/chunked_decoder.ts";
import { ProtocolError } from "../../lib/http/errors.ts";
import { concat, dec, enc, splits } from "./_helpers.ts";

/** Decodes all pieces; returns the body, whether it ended, and the bytes after the terminator. */
function decodeAll(pieces: Uint8Array[]): { body: string; done: boolean; rest: string } {
  const decoder = new ChunkedDecoder("http://h/x");
  const out: Uint8Array[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const data = decoder.decode(pieces[i]!);
    if (data !== null) out.push(data);
    if (decoder.done) {
      const rest = concat(pieces[i]!.subarray(decoder.consumed), ...pieces.slice(i + 1));
      return { body: dec.decode(concat(...out)), done: true, rest: dec.decode(rest) };
    }
    assert.equal(decoder.consumed, pieces[i]!.length);
  }
  return { body: dec.decode(concat(...out)), done: false, rest: "" };
}

const CHUNKED = "4\r\nWiki\r\n" + '6;name=value;x="q"\r\npedia \r\n' + "E\r\nin \r\n\r\nchunks.\r\n" +
  "1a \r\n" + "abcdefghijklmnopqrstuvwxyz\r\n" + "0\r\nExpires: never\r\nX-Trailer: 1\r\n\r\nNEXT";

Deno.test("the chunked body decodes identically however the bytes are split", () => {
  const bytes = enc.encode(CHUNKED);
  let count = 0;
  for (const pieces of splits(bytes)) {
    assert.deepEqual(decodeAll(pieces), {
      body: "Wikipedia in \r\n\r\nchunks.abcdefghijklmnopqrstuvwxyz",
      done: true,
      rest: "NEXT",
    });
    count++;
  }
  assert.equal(count, bytes.length + 1);
});

Deno.test("an empty chunked body, leading zeros, trailing spaces and extensions are accepted", () => {
  assert.deepEqual(decodeAll([enc.encode("0\r\n\r\n")]), { body: "", done: true, rest: "" });
  const wire = "0000000000000003 \t\r\nabc\r\n2;a=b;c\r\nde\r\n000;x\r\n\r\n";
  for (const pieces of splits(enc.encode(wire))) {
    assert.deepEqual(decodeAll(pieces), { body: "abcde", done: true, rest: "" });
  }
});

Deno.test("several chunks in one input come out as one array", () => {
  const decoder = new ChunkedDecoder("http://h/x");
  const data = decoder.decode(enc.encode("1\r\na\r\n2\r\nbc\r\n3\r\ndef\r\n"));
  assert.equal(dec.decode(data!), "abcdef");
  assert.equal(decoder.done, false);
});

function assertBad(text: string, pattern: RegExp): void {
  for (const pieces of splits(enc.encode(text))) {
    assert.throws(() => decodeAll(pieces), (err: unknown) => {
      assert.ok(err instanceof ProtocolError, String(err));
      assert.match(err.message, pattern);
      assert.match(err.message, /http:\/\/h\/x/);
      return true;
    });
  }
}

Deno.test("bad chunk sizes are ProtocolErrors", () => {
  assertBad("zz\r\nab\r\n0\r\n\r\n", /invalid chunk size "zz"/);
  assertBad("-1\r\nab\r\n", /invalid chunk size "-1"/);
  assertBad("\r\n", /invalid chunk size ""/);
  assertBad("4g\r\nabcd\r\n", /invalid chunk size "4g"/);
  assertBad("5 ;x\r\nabcde\r\n", /invalid chunk size "5 "/);
  assertBad("5 junk\r\nabcde\r\n", /invalid chunk size "5 junk"/);
  assertBad("00000000000000005\r\nabcde\r\n", /invalid chunk size/);
  assertBad("ffffffffffffffff\r\n", /chunk size is too large/);
});

Deno.test("chunked framing needs CRLF everywhere: bare LF and stray CR are ProtocolErrors", () => {
  assertBad("2\r\nabc\r\n0\r\n\r\n", /chunk data is not followed by CRLF/);
  assertBad("2\r\nab\rX", /chunk data is not followed by CRLF/);
  assertBad("2\r\nab\n0\r\n\r\n", /chunk data is not followed by CRLF/);
  assertBad("3\nabc\r\n0\r\n\r\n", /chunk size line is not terminated by CRLF/);
  assertBad("2\rab\r\n", /chunk size line holds a CR/);
  assertBad("0\r\n\n", /trailer line is not terminated by CRLF/);
  assertBad("0\r\nX: 1\n\r\n", /trailer line is not terminated by CRLF/);
});

Deno.test("trailer lines are checked like header fields, and the trailer section is bounded", () => {
  assertBad("0\r\nX@: v\r\n\r\n", /trailer line has an invalid field name "X@"/);
  assertBad("0\r\nX: a\x01b\r\n\r\n", /trailer line has a control character/);
  assertBad("0\r\nX: a\r\n folded\r\n\r\n", /trailer line is folded/);
  // "X: " + value + CRLF + CRLF: exactly 4096 bytes.
  const fits = `0\r\nX: ${"t".repeat(4096 - 7)}\r\n\r\n`;
  assert.equal(decodeAll([enc.encode(fits)]).done, true);
  assertBad(`0\r\nX: ${"t".repeat(4096 - 6)}\r\n\r\n`, /trailer section is too long/);
});

Deno.test("a chunk size line longer than 4096 bytes, or extensions that outweigh the data, are refused", () => {
  // "1;" + extension + CRLF: exactly 4096 bytes.
  const fits = `1;${"e".repeat(4096 - 4)}\r\na\r\n0\r\n\r\n`;
  assert.equal(decodeAll([enc.encode(fits)]).body, "a");
  assert.throws(
    () => decodeAll([enc.encode(`1;${"e".repeat(4096 - 3)}\r\na\r\n`)]),
    /chunk size line is too long/,
  );
  // 200 bytes of extension for each byte of data: past 16 KiB of overhead after about 90 chunks.
  const chatty = `1;${"e".repeat(200)}\r\na\r\n`.repeat(100) + "0\r\n\r\n";
  assert.throws(() => decodeAll([enc.encode(chatty)]), /too much framing overhead/);
  const fine = `1;${"e".repeat(10)}\r\na\r\n`.repeat(1000) + "0\r\n\r\n";
  assert.equal(decodeAll([enc.encode(fine)]).body.length, 1000);
});

Deno.test("a stream that ends mid-chunk is reported as not done", () => {
  for (const text of ["5\r\nab", "5\r\nabcde\r\n", "5\r\nabcde\r\n0\r\n", "5;ext"]) {
    assert.equal(decodeAll([enc.encode(text)]).done, false, text);
  }
});
