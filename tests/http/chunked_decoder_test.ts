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

Deno.test("an empty chunked body and bare LF line ends are accepted", () => {
  assert.deepEqual(decodeAll([enc.encode("0\r\n\r\n")]), { body: "", done: true, rest: "" });
  for (const pieces of splits(enc.encode("3\nabc\n0\n\n"))) {
    assert.deepEqual(decodeAll(pieces), { body: "abc", done: true, rest: "" });
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
  assertBad("zz\r\nab\r\n0\r\n\r\n", /invalid chunk size: unexpected byte 0x7a/);
  assertBad("-1\r\nab\r\n", /invalid chunk size: unexpected byte 0x2d/);
  assertBad("\r\n", /invalid chunk size/);
  assertBad("4g\r\nabcd\r\n", /invalid chunk size: unexpected byte 0x67/);
  assertBad("fffffffffffffffff\r\n", /chunk size is too large/);
});

Deno.test("chunk data not followed by CRLF is a ProtocolError", () => {
  assertBad("2\r\nabc\r\n0\r\n\r\n", /chunk data is not followed by CRLF/);
  assertBad("2\r\nab\rX", /chunk data is not followed by CRLF/);
  assertBad("2\rab", /chunk size line is not terminated by CRLF/);
});

Deno.test("a stream that ends mid-chunk is reported as not done", () => {
  for (const text of ["5\r\nab", "5\r\nabcde\r\n", "5\r\nabcde\r\n0\r\n", "5;ext"]) {
    assert.equal(decodeAll([enc.encode(text)]).done, false, text);
  }
});
