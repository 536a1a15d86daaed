// gunzipStream as the client uses it: pulled by the consumer, bounded output, failures typed and the
// raw body cancelled (which closes its connection).
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { ProtocolError } from "../../lib/http/errors.ts";
import { gunzipStream } from "../../lib/http/gunzip.ts";
import { concat, dec, enc, readAll } from "./_helpers.ts";

const URL_TEXT = "https://h/api/v1/configmaps";

/** A raw body of `chunks` that records how often it was pulled and why it was cancelled. */
function rawBody(chunks: Uint8Array[], failAt = -1) {
  const log = { pulls: 0, cancelled: false, reason: undefined as unknown };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      log.pulls++;
      if (i === failAt) throw new Error("connection reset");
      const chunk = chunks[i++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
    cancel(reason) {
      log.cancelled = true;
      log.reason = reason;
    },
  }, { highWaterMark: 0 });
  return { stream, log };
}

const gzip = (text: string) => new Uint8Array(gzipSync(enc.encode(text)));

Deno.test("input is pulled only as the consumer reads, and each member's data comes as it decodes", async () => {
  const events = ['{"type":"ADDED"}\n', '{"type":"MODIFIED"}\n', '{"type":"DELETED"}\n'];
  const { stream, log } = rawBody(events.map(gzip));
  const reader = gunzipStream(stream, URL_TEXT).getReader();
  assert.equal(log.pulls, 0);
  for (const [i, event] of events.entries()) {
    const { value } = await reader.read();
    assert.equal(dec.decode(value), event);
    assert.equal(log.pulls, i + 1);
  }
  assert.equal((await reader.read()).done, true);
  assert.equal(log.cancelled, false);
});

Deno.test("a bomb comes out in reads of at most 16 KiB, with no input pulled meanwhile", async () => {
  const bomb = new Uint8Array(gzipSync(new Uint8Array(16 * 1024 * 1024), { level: 9 }));
  const { stream, log } = rawBody([bomb]);
  const reader = gunzipStream(stream, URL_TEXT).getReader();
  for (let i = 0; i < 10; i++) {
    const { value } = await reader.read();
    assert.ok(value !== undefined && value.length > 0 && value.length <= 16 * 1024);
  }
  assert.equal(log.pulls, 1);
  await reader.cancel("enough");
  assert.equal(log.cancelled, true);
  assert.equal(log.reason, "enough");
});

Deno.test("corrupt data is a ProtocolError naming the URL and cancels the raw body", async () => {
  const member = gzip("x".repeat(1000));
  member[member.length - 6] = member[member.length - 6]! ^ 1; // the CRC-32
  for (const body of [member, concat(gzip("ok"), enc.encode("garbage")), enc.encode("not gzip at all")]) {
    const { stream, log } = rawBody([body, enc.encode("unread")]);
    await assert.rejects(readAll(gunzipStream(stream, URL_TEXT)), (err: unknown) => {
      assert.ok(err instanceof ProtocolError, String(err));
      assert.match(err.message, /^Invalid gzip response body from https:\/\/h\/api\/v1\/configmaps: \w/);
      assert.equal(err.url, URL_TEXT);
      return true;
    });
    assert.equal(log.cancelled, true);
  }
});

Deno.test("a body ending inside a member is a ProtocolError; an empty body is empty", async () => {
  const member = gzip("hello");
  const { stream } = rawBody([member.subarray(0, member.length - 3)]);
  await assert.rejects(
    readAll(gunzipStream(stream, URL_TEXT)),
    /^ProtocolError: Invalid gzip response body from https:\/\/h\/api\/v1\/configmaps: unexpected end of data$/,
  );
  assert.equal((await readAll(gunzipStream(rawBody([]).stream, URL_TEXT))).length, 0);
});

Deno.test("a failing raw body rejects with its own error", async () => {
  const { stream } = rawBody([gzip("a").subarray(0, 5)], 1);
  await assert.rejects(readAll(gunzipStream(stream, URL_TEXT)), /^Error: connection reset$/);
});
