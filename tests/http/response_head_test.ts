import assert from "node:assert/strict";
import { ProtocolError } from "../../lib/http/errors.ts";
import { type ResponseHead, ResponseHeadParser } from "../../lib/http/response_head.ts";
import { concat, dec, enc, splits } from "./_helpers.ts";

const URL_TEXT = "http://127.0.0.1:1/x";

/** Feeds pieces until the head completes; returns it with the bytes that followed it. */
function parse(pieces: Uint8Array[], max = 65_536): { head: ResponseHead; rest: string } {
  const parser = new ResponseHeadParser(max, URL_TEXT);
  for (let i = 0; i < pieces.length; i++) {
    const used = parser.push(pieces[i]!);
    if (used !== -1) {
      return {
        head: parser.head,
        rest: dec.decode(concat(pieces[i]!.subarray(used), ...pieces.slice(i + 1))),
      };
    }
  }
  throw new Error("head incomplete");
}

const RESPONSE = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Multi: a\r\nX-Multi: b\r\n" +
  'Empty:\r\nContent-Length: 7\r\n\r\n{"a":1}';

Deno.test("the head parses identically however the bytes are split", () => {
  const bytes = enc.encode(RESPONSE);
  let count = 0;
  for (const pieces of splits(bytes)) {
    const { head, rest } = parse(pieces);
    assert.equal(head.status, 200);
    assert.equal(head.statusText, "OK");
    assert.equal(head.minorVersion, 1);
    assert.equal(head.headers.get("content-type"), "application/json");
    assert.equal(head.headers.get("x-multi"), "a, b");
    assert.equal(head.headers.get("empty"), "");
    assert.equal(rest, '{"a":1}');
    count++;
  }
  assert.equal(count, bytes.length + 1);
});

Deno.test("bare LF line endings, HTTP/1.0 and a missing reason phrase are accepted", () => {
  const { head, rest } = parse([enc.encode("HTTP/1.0 404\nA:  spaced value \t\n\nbody")]);
  assert.equal(head.status, 404);
  assert.equal(head.statusText, "");
  assert.equal(head.minorVersion, 0);
  assert.equal(head.headers.get("a"), "spaced value");
  assert.equal(rest, "body");
});

function assertProtocolError(text: string, pattern: RegExp, max?: number): void {
  for (const pieces of splits(enc.encode(text))) {
    assert.throws(() => parse(pieces, max), (err: unknown) => {
      assert.ok(err instanceof ProtocolError, String(err));
      assert.equal(err.name, "ProtocolError");
      assert.equal(err.url, URL_TEXT);
      assert.match(err.message, pattern);
      return true;
    });
  }
}

Deno.test("a malformed status line is a ProtocolError", () => {
  assertProtocolError("HTTP/2 200 OK\r\n\r\n", /malformed status line "HTTP\/2 200 OK"/);
  assertProtocolError("ICY 200 OK\r\n\r\n", /malformed status line/);
  assertProtocolError("HTTP/1.1 20 OK\r\n\r\n", /malformed status line/);
  assertProtocolError("\r\n\r\n", /malformed status line/);
});

Deno.test("a header line without a colon or with a bad name is a ProtocolError", () => {
  assertProtocolError("HTTP/1.1 200 OK\r\nNoColonHere\r\n\r\n", /header line 1 has no field name and colon/);
  assertProtocolError("HTTP/1.1 200 OK\r\n: value\r\n\r\n", /has no field name/);
  assertProtocolError("HTTP/1.1 200 OK\r\nA: 1\r\n folded\r\n\r\n", /header line 2 is folded/);
  assertProtocolError(
    "HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n",
    /header line 1 has an invalid field name "Bad Name"/,
  );
  assertProtocolError("HTTP/1.1 200 OK\r\nX-Foo : 1\r\n\r\n", /invalid field name "X-Foo "/);
});

Deno.test("control bytes in a value, and CR CR LF line ends, are ProtocolErrors as in Go", () => {
  for (const ctl of ["\x01", "\x7f", "\x0b", "\0", "\rX"]) {
    assertProtocolError(
      `HTTP/1.1 200 OK\r\nX: a${ctl}b\r\n\r\n`,
      /header line 1 has a control character in the value of "X"/,
    );
  }
  // Go drops one CR with the LF and trims only spaces and tabs: the other CR stays in the value.
  assertProtocolError("HTTP/1.1 200 OK\r\nX: a\r\r\n\r\n", /control character in the value of "X"/);
  // CR CR LF where the blank line should be is a line of its own, without a colon.
  assertProtocolError("HTTP/1.1 200 OK\r\nX: a\r\n\r\r\n\r\n", /header line 2 has no field name and colon/);
});

Deno.test("values keep inner spaces and obs-text, and lose the spaces and tabs around them", () => {
  const text = "HTTP/1.1 200 OK\r\nX: \t a  b\xe9 \t\r\nY:\r\n\r\n";
  const { head } = parse([Uint8Array.from(text, (ch) => ch.charCodeAt(0))]);
  assert.equal(head.headers.get("x"), "a  b\xe9");
  assert.equal(head.headers.get("y"), "");
});

Deno.test("a head larger than the limit is a ProtocolError, even before it ends", () => {
  const big = "HTTP/1.1 200 OK\r\nX: " + "a".repeat(200) + "\r\n\r\n";
  assertProtocolError(big, /larger than 100 bytes/, 100);
  const parser = new ResponseHeadParser(100, URL_TEXT);
  assert.equal(parser.push(enc.encode("HTTP/1.1 200 OK\r\nX: " + "a".repeat(60))), -1);
  assert.throws(() => parser.push(enc.encode("a".repeat(60))), ProtocolError);
});

Deno.test("a head exactly at the limit is accepted", () => {
  const text = "HTTP/1.1 200 OK\r\nX: abc\r\n\r\n";
  assert.equal(parse([enc.encode(text)], text.length).head.headers.get("x"), "abc");
});
