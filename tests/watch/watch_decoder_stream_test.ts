import assert from "node:assert/strict";
import { WatchDecodeError } from "../../lib/watch/watch_decode_error.ts";
import { WatchDecoderStream } from "../../lib/watch/watch_decoder_stream.ts";
import type { RawWatchEvent } from "../../lib/watch/watch_event.ts";
import { WatchEventDecoder } from "../../lib/watch/watch_event_decoder.ts";
import { bookmark, cm, errorLine, line } from "./_helpers.ts";
import { seededRandom as seeded } from "../_util/seeded_random.ts";

const enc = new TextEncoder();

/** Exact semantics through the synchronous core: every event before a bad line is delivered. */
function decodeAll(
  chunks: Uint8Array[],
  maxLineBytes?: number,
): Promise<{ events: RawWatchEvent[]; error: unknown }> {
  const events: RawWatchEvent[] = [];
  const decoder = new WatchEventDecoder(maxLineBytes === undefined ? {} : { maxLineBytes });
  const emit = (e: RawWatchEvent) => void events.push(e);
  try {
    for (const chunk of chunks) decoder.push(chunk, emit);
    decoder.end(emit);
    return Promise.resolve({ events, error: undefined });
  } catch (error) {
    return Promise.resolve({ events, error });
  }
}

/** The same through WatchDecoderStream. */
async function decodeStream(
  chunks: Uint8Array[],
  maxLineBytes?: number,
): Promise<{ events: RawWatchEvent[]; error: unknown }> {
  let i = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) c.enqueue(chunks[i++]!);
      else c.close();
    },
  });
  const events: RawWatchEvent[] = [];
  try {
    const decoder = new WatchDecoderStream(maxLineBytes === undefined ? {} : { maxLineBytes });
    for await (const e of source.pipeThrough(decoder)) events.push(e);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    out.push(bytes.slice(prev, c));
    prev = c;
  }
  out.push(bytes.slice(prev));
  return out;
}

const multiByte = ["é", "日本語", "😀", "ça va", "Ωmega", "𝄞"];
function sampleEvents(n: number): RawWatchEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    type: i % 3 === 0 ? "ADDED" : "MODIFIED",
    object: cm(`cm-${i}`, String(i + 1), {
      data: { text: multiByte[i % multiByte.length]!.repeat(i % 7 + 1) },
    }),
  } as RawWatchEvent));
}

Deno.test("WatchDecoderStream decodes random chunkings and errors the stream on a bad line", async () => {
  const events = sampleEvents(50);
  const bytes = enc.encode(events.map((e) => JSON.stringify(e) + "\n").join(""));
  for (let seed = 100; seed < 110; seed++) {
    const rnd = seeded(seed);
    const cuts = Array.from({ length: 40 }, () => Math.floor(rnd() * bytes.length));
    const { events: got, error } = await decodeStream(splitAt(bytes, cuts));
    assert.equal(error, undefined);
    assert.deepEqual(got, events);
  }
  const bad = await decodeStream([bytes, enc.encode("oops\n"), bytes]);
  assert.ok(bad.error instanceof WatchDecodeError);
  assert.equal(bad.error.lineNumber, 51);
  assert.equal(bad.events.length, 50);
  const truncated = await decodeStream([bytes.subarray(0, bytes.length - 3)]);
  assert.ok(truncated.error instanceof WatchDecodeError && truncated.error.reason === "truncated");
});

Deno.test("WatchDecoderStream delivers the good events of a chunk before the error of a later line", async () => {
  const text = line("ADDED", cm("a", "1")) + line("MODIFIED", cm("a", "2")) + "{not json}\n" +
    line("ADDED", cm("b", "3"));
  for (const chunks of [[enc.encode(text)], splitAt(enc.encode(text), [30, 200])]) {
    const { events, error } = await decodeStream(chunks);
    assert.deepEqual(events.map((e) => e.type), ["ADDED", "MODIFIED"]);
    assert.ok(error instanceof WatchDecodeError);
    assert.equal(error.reason, "invalidJson");
    assert.equal(error.lineNumber, 3);
  }
  // The same at the end of the input (the error comes from flush).
  const truncated = line("ADDED", cm("a", "1")) + line("ADDED", cm("b", "2")).slice(0, 20);
  const end = await decodeStream([enc.encode(truncated)]);
  assert.equal(end.events.length, 1);
  assert.ok(end.error instanceof WatchDecodeError && end.error.reason === "truncated");
});

Deno.test("WatchDecoderStream delivers the events before a failure of the byte source, then that failure", async () => {
  const boom = new Error("connection reset");
  let sent = false;
  const source = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent) return c.error(boom);
      sent = true;
      c.enqueue(enc.encode(line("ADDED", cm("a", "1")) + line("ADDED", cm("b", "2"))));
    },
  });
  const events: RawWatchEvent[] = [];
  await assert.rejects(async () => {
    for await (const e of source.pipeThrough(new WatchDecoderStream())) events.push(e);
  }, (e: unknown) => e === boom);
  assert.equal(events.length, 2);
});

Deno.test("leaving WatchDecoderStream early cancels the byte source", async () => {
  let cancelled: unknown;
  const source = new ReadableStream<Uint8Array>({
    pull(c) {
      c.enqueue(enc.encode(line("ADDED", cm("a", "1")) + line("ADDED", cm("b", "2"))));
    },
    cancel(reason) {
      cancelled = reason ?? "cancelled";
    },
  });
  for await (const _e of source.pipeThrough(new WatchDecoderStream())) break;
  // The cancellation travels through the pipe asynchronously.
  for (let i = 0; i < 10 && cancelled === undefined; i++) await Promise.resolve();
  assert.notEqual(cancelled, undefined);
});

Deno.test("random chunkings, including splits inside multi-byte characters, decode to the same events", async () => {
  const events = sampleEvents(120);
  const bytes = enc.encode(events.map((e) => JSON.stringify(e) + "\n").join(""));
  let splitInsideChar = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const rnd = seeded(seed);
    const cuts = Array.from({ length: 1 + Math.floor(rnd() * 300) }, () => Math.floor(rnd() * bytes.length));
    for (const c of cuts) if ((bytes[c]! & 0xc0) === 0x80) splitInsideChar++;
    const { events: got, error } = await decodeAll(splitAt(bytes, cuts));
    assert.equal(error, undefined);
    assert.deepEqual(got, events, `seed ${seed}`);
  }
  assert.ok(splitInsideChar > 50, "the chunkings must cut inside multi-byte characters");
});

Deno.test("every two-chunk split of a stream with 4-byte characters decodes identically", async () => {
  const events = sampleEvents(4);
  const bytes = enc.encode(events.map((e) => JSON.stringify(e) + "\n").join(""));
  for (let cut = 0; cut <= bytes.length; cut++) {
    const { events: got, error } = await decodeAll(splitAt(bytes, [cut]));
    assert.equal(error, undefined);
    assert.deepEqual(got, events, `cut at ${cut}`);
  }
});

Deno.test("one-byte chunks decode", async () => {
  const events = sampleEvents(10);
  const bytes = enc.encode(events.map((e) => JSON.stringify(e) + "\n").join(""));
  const { events: got } = await decodeAll(Array.from(bytes, (b) => Uint8Array.of(b)));
  assert.deepEqual(got, events);
});

Deno.test("blank lines and CRLF line ends are skipped", async () => {
  const text = "\n" + line("ADDED", cm("a", "1")).replace("\n", "\r\n") + "\r\n\n  \n \t \r\n" +
    line("DELETED", cm("a", "2"));
  const { events, error } = await decodeAll([enc.encode(text)]);
  assert.equal(error, undefined);
  assert.deepEqual(events.map((e) => e.type), ["ADDED", "DELETED"]);
});

Deno.test("a final line without newline is accepted when it parses", async () => {
  const text = line("ADDED", cm("a", "1")) + line("MODIFIED", cm("a", "2")).trimEnd();
  const { events, error } = await decodeAll([enc.encode(text)]);
  assert.equal(error, undefined);
  assert.equal(events.length, 2);
});

Deno.test("a stream cut inside a line fails as truncated after delivering the complete events", async () => {
  const full = line("ADDED", cm("a", "1")) + line("MODIFIED", cm("a", "2"));
  const { events, error } = await decodeAll([enc.encode(full.slice(0, full.length - 20))]);
  assert.equal(events.length, 1);
  assert.ok(error instanceof WatchDecodeError);
  assert.ok(error instanceof SyntaxError);
  assert.equal(error.reason, "truncated");
  assert.equal(error.lineNumber, 2);
});

Deno.test("invalid JSON errors the stream with the line number, after the good events before it", async () => {
  const text = line("ADDED", cm("a", "1")) + "{not json}\n" + line("ADDED", cm("b", "2"));
  for (const chunks of [[enc.encode(text)], splitAt(enc.encode(text), [5, 40, 90])]) {
    const { events, error } = await decodeAll(chunks);
    assert.equal(events.length, 1);
    assert.ok(error instanceof WatchDecodeError);
    assert.equal(error.reason, "invalidJson");
    assert.equal(error.lineNumber, 2);
    assert.match(
      error.message,
      /^Cannot decode watch event on line 2: not valid JSON \(at position 1 of a 10-character line\)$/,
    );
  }
});

Deno.test("decode errors never carry the offending line: it may be a Secret", async () => {
  const secret = "c2VjcmV0LXBhc3N3b3Jk";
  const secretLine = `{"type":"ADDED","object":{"kind":"Secret","data":{"password":"${secret}"}`;
  const cases = [
    `${secretLine}\n`, // invalid JSON (unterminated)
    `{"type":"ADDED","object":{"kind":"Secret","data":{"password":"${secret}"} x}\n`, // invalid JSON
    `{"type":"${secret}","object":{"metadata":{}}}\n`.replace(secret, "NOPE"), // unknown type
    `{"object":{"data":{"password":"${secret}"}}}\n`, // missing type
    `${secretLine}`, // truncated at the end
    `${secretLine}${"x".repeat(300)}\n`, // too long
  ];
  for (const text of cases) {
    const { error } = await decodeAll([enc.encode(text)], 200);
    assert.ok(error instanceof WatchDecodeError, String(error));
    const shown = JSON.stringify({
      ...error,
      message: error.message,
      stack: error.stack,
      cause: error.cause,
    });
    assert.ok(!shown.includes(secret), `leaked in ${error.reason}: ${shown}`);
    assert.ok(!shown.includes("password"), `leaked a field name in ${error.reason}: ${shown}`);
  }
});

Deno.test("invalid UTF-8 bytes become U+FFFD, as Go's encoding/json does", async () => {
  const bad = new Uint8Array([
    ...enc.encode('{"type":"ADDED","object":{"metadata":{"name":"'),
    0xff,
    ...enc.encode('"}}}\n'),
  ]);
  const { events, error } = await decodeAll([bad]);
  assert.equal(error, undefined);
  assert.equal(events[0]?.type === "ADDED" && events[0].object.metadata.name, "\uFFFD");
});

Deno.test("JSON that is not a watch event is reported, never dropped", async () => {
  const cases: [string, RegExp][] = [
    ['{"object":{"metadata":{}}}', /"type" is missing/],
    ['{"type":"ADDED"}', /"object" is missing/],
    ['{"type":"SOMETHING","object":{"metadata":{}}}', /unknown type "SOMETHING"/],
    ['{"type":"ADDED","object":{}}', /"object.metadata" is missing/],
    ["[1,2]", /not a JSON object/],
    ["42", /not a JSON object/],
    ['{"type":"ADDED","object":[1]}', /"object" is missing/],
  ];
  for (const [text, message] of cases) {
    const { events, error } = await decodeAll([enc.encode(text + "\n")]);
    assert.equal(events.length, 0);
    assert.ok(error instanceof WatchDecodeError, text);
    assert.equal(error.reason, "notAnEvent");
    assert.match(error.message, message);
  }
});

Deno.test("an oversize line fails as soon as it crosses maxLineBytes, within a chunk or across chunks", async () => {
  const big = line("ADDED", cm("a", "1", { data: { x: "y".repeat(500) } }));
  const small = line("ADDED", cm("b", "2"));
  const one = await decodeAll([enc.encode(small + big)], 300);
  assert.equal(one.events.length, 1);
  assert.ok(one.error instanceof WatchDecodeError);
  assert.equal(one.error.reason, "lineTooLong");
  assert.equal(one.error.lineNumber, 2);
  // Across chunks, without any newline ever arriving: the decoder must not buffer without bound.
  const decoder = new WatchEventDecoder({ maxLineBytes: 300 });
  const noop = () => {};
  decoder.push(enc.encode(big.slice(0, 200)), noop);
  assert.throws(
    () => decoder.push(enc.encode(big.slice(200, 400)), noop),
    (e: unknown) => e instanceof WatchDecodeError && e.reason === "lineTooLong",
  );
  // A line of exactly maxLineBytes is accepted.
  const exact = small.trimEnd();
  const ok = await decodeAll([enc.encode(exact + "\n" + exact + "\n")], enc.encode(exact).length);
  assert.equal(ok.error, undefined);
  assert.equal(ok.events.length, 2);
});

Deno.test("a big region of complete lines still bounds each line", async () => {
  const lines = Array.from({ length: 10 }, (_, i) => line("ADDED", cm(`c${i}`, String(i))));
  lines[7] = line("ADDED", cm("big", "7", { data: { x: "z".repeat(400) } }));
  const { events, error } = await decodeAll([enc.encode(lines.join(""))], 300);
  assert.equal(events.length, 7);
  assert.ok(error instanceof WatchDecodeError && error.reason === "lineTooLong" && error.lineNumber === 8);
});

Deno.test("ERROR events with any Status code decode as ERROR events, and bookmarks keep their annotations", async () => {
  const text = [410, 500, 403, 429].map((c) => errorLine(c, `R${c}`)).join("") + bookmark("77", true);
  const { events, error } = await decodeAll([enc.encode(text)]);
  assert.equal(error, undefined);
  assert.deepEqual(
    events.map((e) => e.type === "ERROR" ? e.object.code : e.type),
    [410, 500, 403, 429, "BOOKMARK"],
  );
  const last = events[4]!;
  assert.ok(last.type === "BOOKMARK");
  assert.equal(last.object.metadata.annotations?.["k8s.io/initial-events-end"], "true");
});

Deno.test("a non-positive maxLineBytes is a RangeError", () => {
  assert.throws(() => new WatchDecoderStream({ maxLineBytes: 0 }), RangeError);
});
