import assert from "node:assert/strict";
import { bodyFraming, decodeContent, rawBodyStream } from "../../lib/http/body.ts";
import { Connection } from "../../lib/http/connection.ts";
import { ProtocolError } from "../../lib/http/errors.ts";
import { type ResponseHead, ResponseHeadParser } from "../../lib/http/response_head.ts";
import { concat, dec, enc, gzip, readAll, ScriptedSocket, splits } from "./_helpers.ts";

const URL_TEXT = "http://h/x";

/** The parsed head of an HTTP/1.`minor` response; an array value is sent as repeated field lines. */
function head(status: number, headers: Record<string, string | string[]>, minor = 1): ResponseHead {
  let text = `HTTP/1.${minor} ${status} X\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    for (const one of [value].flat()) text += `${name}: ${one}\r\n`;
  }
  const parser = new ResponseHeadParser(65_536, URL_TEXT);
  parser.push(enc.encode(text + "\r\n"));
  return parser.head;
}

/** Reads the body of `h` from `pieces`; reports the body, how it ended and what was left unread. */
async function readBody(
  pieces: Uint8Array[],
  h: ResponseHead,
  method = "GET",
): Promise<{ body: Uint8Array; reusable: boolean | undefined; rest: string; closed: boolean }> {
  const socket = new ScriptedSocket(pieces);
  const conn = new Connection(socket, "http://h", false);
  conn.begin(URL_TEXT, 0);
  let reusable: boolean | undefined;
  const framing = bodyFraming(method, h, URL_TEXT);
  const raw = rawBodyStream(conn, framing, URL_TEXT, (r) => reusable = r);
  const body = await readAll(decodeContent(raw, h.headers, URL_TEXT));
  let rest = "";
  if (!conn.closed) {
    for (let more = await conn.read(); more !== null; more = await conn.read()) rest += dec.decode(more);
  }
  conn.close();
  return { body, reusable, rest, closed: socket.closed };
}

Deno.test("framing follows status, method, Transfer-Encoding and Content-Length", () => {
  assert.deepEqual(bodyFraming("GET", head(204, {}), URL_TEXT), { kind: "none" });
  assert.deepEqual(bodyFraming("GET", head(304, { "content-length": "5" }), URL_TEXT), { kind: "none" });
  assert.deepEqual(bodyFraming("HEAD", head(200, { "content-length": "5" }), URL_TEXT), { kind: "none" });
  assert.deepEqual(bodyFraming("GET", head(200, { "content-length": "0" }), URL_TEXT), { kind: "none" });
  assert.deepEqual(bodyFraming("GET", head(200, { "content-length": "5" }), URL_TEXT), {
    kind: "length",
    length: 5,
  });
  assert.deepEqual(bodyFraming("GET", head(200, { "content-length": ["5", "5"] }), URL_TEXT), {
    kind: "length",
    length: 5,
  });
  assert.deepEqual(bodyFraming("GET", head(200, { "content-length": "000000000000000000005" }), URL_TEXT), {
    kind: "length",
    length: 5,
  });
  assert.deepEqual(
    bodyFraming("GET", head(200, { "transfer-encoding": "Chunked", "content-length": "5" }), URL_TEXT),
    { kind: "chunked" },
  );
  assert.deepEqual(bodyFraming("GET", head(200, {}), URL_TEXT), { kind: "close" });
  assert.deepEqual(bodyFraming("HEAD", head(200, { "content-length": "9223372036854775807" }), URL_TEXT), {
    kind: "none",
  });
  for (
    const cl of ["-1", "abc", "5, 5", "1e3", "+5", "0x5", "", "9223372036854775808", "99999999999999999999"]
  ) {
    assert.throws(() => bodyFraming("GET", head(200, { "content-length": cl }), URL_TEXT), ProtocolError, cl);
  }
});

Deno.test("framing fields are checked as Go checks them, whatever the status", () => {
  const bad: [string, ResponseHead, RegExp][] = [
    ["GET", head(200, { "content-length": ["5", "6"] }), /different Content-Length values "5, 6"/],
    [
      "GET",
      head(200, { "transfer-encoding": "gzip, chunked" }),
      /unsupported Transfer-Encoding "gzip, chunked"/,
    ],
    ["GET", head(200, { "transfer-encoding": "gzip" }), /unsupported Transfer-Encoding "gzip"/],
    ["GET", head(200, { "transfer-encoding": "identity" }), /unsupported Transfer-Encoding/],
    ["GET", head(200, { "transfer-encoding": ["chunked", "chunked"] }), /unsupported Transfer-Encoding/],
    ["GET", head(200, { "transfer-encoding": "chunked" }, 0), /Transfer-Encoding in an HTTP\/1\.0 response/],
    ["GET", head(204, { "content-length": "x" }), /invalid Content-Length "x"/],
    ["HEAD", head(200, { "transfer-encoding": "gzip" }), /unsupported Transfer-Encoding/],
    ["GET", head(103, { "content-length": "" }), /invalid Content-Length ""/],
  ];
  for (const [method, h, pattern] of bad) {
    assert.throws(() => bodyFraming(method, h, URL_TEXT), (err: unknown) => {
      assert.ok(err instanceof ProtocolError);
      assert.match(err.message, pattern);
      return true;
    });
  }
});

Deno.test("a Content-Length body reads the same however it is split and leaves later bytes unread", async () => {
  const h = head(200, { "content-length": "11" });
  for (const pieces of splits(enc.encode("hello worldNEXT"))) {
    const r = await readBody(pieces, h);
    assert.equal(dec.decode(r.body), "hello world");
    assert.equal(r.reusable, true);
    assert.equal(r.rest, "NEXT");
  }
});

Deno.test("a chunked body with extensions and trailers reads the same however it is split", async () => {
  const h = head(200, { "transfer-encoding": "chunked" });
  const wire = enc.encode("3;x=y\r\nabc\r\n4\r\ndefg\r\n0\r\nT: 1\r\n\r\n");
  for (const pieces of splits(wire)) {
    const r = await readBody(pieces, h);
    assert.equal(dec.decode(r.body), "abcdefg");
    assert.equal(r.reusable, true);
  }
});

Deno.test("a body delimited by the connection close is read to EOF and not reusable", async () => {
  const r = await readBody([enc.encode("all of "), enc.encode("it")], head(200, {}));
  assert.equal(dec.decode(r.body), "all of it");
  assert.equal(r.reusable, false);
  assert.equal(r.closed, true);
});

Deno.test("a gzip body is decoded, chunked or not, however it is split", async () => {
  const text = JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => ({ name: `pod-${i}` })) });
  const zipped = await gzip(enc.encode(text));
  const hexLen = zipped.length.toString(16);
  const chunked = concat(enc.encode(`${hexLen}\r\n`), zipped, enc.encode("\r\n0\r\n\r\n"));
  const cases: [ResponseHead, Uint8Array][] = [
    [head(200, { "content-encoding": "gzip", "content-length": String(zipped.length) }), zipped],
    [head(200, { "content-encoding": "gzip", "transfer-encoding": "chunked" }), chunked],
  ];
  for (const [h, wire] of cases) {
    for (const pieces of splits(wire)) {
      const r = await readBody(pieces, h);
      assert.equal(dec.decode(r.body), text);
      assert.equal(r.reusable, true);
    }
  }
});

async function assertTruncated(h: ResponseHead, wire: string, pattern: RegExp): Promise<void> {
  for (const pieces of splits(enc.encode(wire))) {
    let reusable: boolean | undefined;
    const socket = new ScriptedSocket(pieces);
    const conn = new Connection(socket, "http://h", false);
    conn.begin(URL_TEXT, 0);
    const raw = rawBodyStream(conn, bodyFraming("GET", h, URL_TEXT), URL_TEXT, (r) => reusable = r);
    await assert.rejects(readAll(raw), (err: unknown) => {
      assert.ok(err instanceof ProtocolError, String(err));
      assert.match(err.message, pattern);
      return true;
    });
    assert.equal(reusable, false);
    assert.equal(socket.closed, true);
  }
}

Deno.test("a body shorter than its Content-Length is a ProtocolError and closes the connection", async () => {
  await assertTruncated(
    head(200, { "content-length": "10" }),
    "short",
    /Truncated response body.*5 of 10 bytes/,
  );
});

Deno.test("a chunked stream ending mid-chunk is a ProtocolError and closes the connection", async () => {
  const h = head(200, { "transfer-encoding": "chunked" });
  await assertTruncated(h, "5\r\nab", /ended inside the chunked body/);
  await assertTruncated(h, "5\r\nabcde\r\n", /ended inside the chunked body/);
  await assertTruncated(h, "5\r\nabcde\r\n0\r\nTrailer: x\r\n", /ended inside the chunked body/);
  await assertTruncated(h, "zz\r\n", /invalid chunk size/);
});

Deno.test("cancelling the body closes the connection and marks it not reusable", async () => {
  const socket = new ScriptedSocket([enc.encode("abc"), enc.encode("def")]);
  const conn = new Connection(socket, "http://h", false);
  let reusable: boolean | undefined;
  const raw = rawBodyStream(conn, { kind: "length", length: 6 }, URL_TEXT, (r) => reusable = r);
  for await (const chunk of raw) {
    assert.equal(dec.decode(chunk), "abc");
    break;
  }
  assert.equal(reusable, false);
  assert.equal(socket.closed, true);
});

Deno.test("a gzip body of concatenated members (one per watch event, as kube-apiserver sends) is decoded", async () => {
  const events = ['{"type":"ADDED","object":{"a":1}}\n', '{"type":"BOOKMARK","object":{"b":"ü"}}\n'];
  const members = await Promise.all(events.map((e) => gzip(enc.encode(e))));
  const zipped = concat(...members);
  const h = head(200, { "content-encoding": "gzip", "content-length": String(zipped.length) });
  for (const pieces of splits(zipped)) {
    const r = await readBody(pieces, h);
    assert.equal(dec.decode(r.body), events.join(""));
  }
});

Deno.test("a corrupt gzip body is a ProtocolError naming the URL", async () => {
  const h = head(200, { "content-encoding": "gzip", "content-length": "12" });
  await assert.rejects(
    readBody([new Uint8Array([31, 139, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8])], h),
    (err: unknown) => {
      assert.ok(err instanceof ProtocolError, String(err));
      assert.match(err.message, /^Invalid gzip response body from http:\/\/h\/x: /);
      return true;
    },
  );
});

Deno.test("a corrupt gzip body closes the connection at once, even with raw bytes still unread", async () => {
  const socket = new ScriptedSocket([
    new Uint8Array([31, 139, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8]),
    new Uint8Array(100),
  ]);
  const conn = new Connection(socket, "http://h", false);
  conn.begin(URL_TEXT, 0);
  let reusable: boolean | undefined;
  const h = head(200, { "content-encoding": "gzip", "content-length": "112" });
  const raw = rawBodyStream(conn, bodyFraming("GET", h, URL_TEXT), URL_TEXT, (r) => reusable = r);
  await assert.rejects(readAll(decodeContent(raw, h.headers, URL_TEXT)), ProtocolError);
  assert.equal(socket.closed, true);
  assert.equal(reusable, false);
});

Deno.test("a gzip body whose raw stream fails rejects with that failure and closes the connection", async () => {
  const zipped = await gzip(enc.encode("x".repeat(1000)));
  const h = head(200, { "content-encoding": "gzip", "content-length": String(zipped.length + 10) });
  const socket = new ScriptedSocket([zipped.subarray(0, 10)]);
  const conn = new Connection(socket, "http://h", false);
  conn.begin(URL_TEXT, 0);
  const raw = rawBodyStream(conn, bodyFraming("GET", h, URL_TEXT), URL_TEXT, () => {});
  await assert.rejects(readAll(decodeContent(raw, h.headers, URL_TEXT)), /Truncated response body/);
  assert.equal(socket.closed, true);
});
