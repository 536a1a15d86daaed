// Bounded input: response bodies over maxBodyBytes, counted after gzip decoding, fail fast with
// bounded memory. The hostile server streams a gzip bomb generated on the fly: one gzip member of
// 16 MiB of zeros (about 16 KiB compressed) sent again and again, so 640 members are 10 GiB of
// output from about 10 MB on the wire (concatenated members are what kube-apiserver sends too).
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { BodyTooLargeError, HttpClient, type HttpClientOptions } from "../../lib/http/mod.ts";
import { WatchDecoderStream } from "../../lib/watch/watch_decoder_stream.ts";
import { WatchDecodeError } from "../../lib/watch/watch_decode_error.ts";
import { enc } from "./_helpers.ts";
import { ScriptedServer } from "./_server.ts";

const MiB = 1024 * 1024;
const MEMBER_OUTPUT = 16 * MiB;
const MEMBER = gzipSync(new Uint8Array(MEMBER_OUTPUT), { level: 9 });
// Loose bounds for a loaded 2-core machine: the client must give up long before the bomb ends.
const MAX_SECONDS = 10;
const MAX_RSS_GROWTH = 100 * MiB;

/** Serves one gzip bomb of `members` members per request, chunked, until done or the client leaves. */
function bombServer(members: number): ScriptedServer {
  return new ScriptedServer(async (conn) => {
    if (await conn.readRequest() === null) return;
    await conn.send(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n" +
        "Transfer-Encoding: chunked\r\n\r\n",
    );
    const chunk = new Uint8Array([...enc.encode(`${MEMBER.length.toString(16)}\r\n`), ...MEMBER, 13, 10]);
    try {
      for (let i = 0; i < members; i++) await conn.send(chunk);
      await conn.send("0\r\n\r\n");
    } catch {
      // The client closed the connection: that is the point.
    }
  });
}

/** Runs `consume` against the bomb and returns how long it took and the peak RSS growth. */
async function underBomb(
  members: number,
  options: HttpClientOptions,
  consume: (client: HttpClient, url: URL, sample: () => void, signal: AbortSignal) => Promise<unknown>,
): Promise<{ error: unknown; seconds: number; rssGrowth: number }> {
  const server = bombServer(members);
  const client = new HttpClient(options);
  // A guard so that code without the limit fails the test instead of running for minutes.
  const signal = AbortSignal.timeout(30_000);
  const baseline = Deno.memoryUsage().rss;
  let peak = baseline;
  const sample = () => void (peak = Math.max(peak, Deno.memoryUsage().rss));
  const started = performance.now();
  let error: unknown;
  try {
    await consume(client, new URL(`${server.url}/bomb`), sample, signal);
  } catch (err) {
    error = err;
  } finally {
    sample();
    client.close();
    await server.close();
  }
  return {
    error,
    seconds: (performance.now() - started) / 1000,
    rssGrowth: peak - baseline,
  };
}

function assertBounded(outcome: { seconds: number; rssGrowth: number }): void {
  assert.ok(outcome.seconds < MAX_SECONDS, `took ${outcome.seconds.toFixed(1)} s`);
  assert.ok(outcome.rssGrowth < MAX_RSS_GROWTH, `RSS grew ${(outcome.rssGrowth / MiB).toFixed(0)} MiB`);
}

Deno.test("a 10 GiB gzip bomb read as a stream fails at the default maxBodyBytes, fast and in bounded memory", async () => {
  const outcome = await underBomb(640, {}, async (client, url, sample, signal) => {
    const res = await client.request({ method: "GET", url, signal });
    for await (const _chunk of res.body) sample();
  });
  assert.ok(outcome.error instanceof BodyTooLargeError, String(outcome.error));
  assert.equal(outcome.error.limit, 256 * MiB);
  assert.equal(
    outcome.error.message,
    "Response body from http://127.0.0.1:" + new URL(outcome.error.url).port +
      "/bomb is larger after gzip decoding than maxBodyBytes (268435456 bytes)",
  );
  assertBounded(outcome);
});

Deno.test("text() of a gzip bomb fails at a small maxBodyBytes without buffering the output", async () => {
  // 256 MiB of output: code without the limit reads it all (and the test fails) without exhausting memory.
  const outcome = await underBomb(16, { maxBodyBytes: 8 * MiB }, async (client, url, _sample, signal) => {
    await (await client.request({ method: "GET", url, signal })).text();
  });
  assert.ok(outcome.error instanceof BodyTooLargeError, String(outcome.error));
  assert.match(outcome.error.message, /is larger after gzip decoding than maxBodyBytes \(8388608 bytes\)$/);
  assertBounded(outcome);
});

Deno.test("a declared Content-Length over maxBodyBytes fails before the body is read", async () => {
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await conn.send("HTTP/1.1 200 OK\r\nContent-Length: 1000001\r\n\r\n");
  });
  await using client = new HttpClient({ maxBodyBytes: 1_000_000 });
  try {
    await assert.rejects(
      client.request({ method: "GET", url: new URL(`${server.url}/big`) }),
      (err: unknown) => {
        assert.ok(err instanceof BodyTooLargeError, String(err));
        assert.match(
          err.message,
          /^Response body from http:\/\/127\.0\.0\.1:\d+\/big is larger than maxBodyBytes/,
        );
        return true;
      },
    );
  } finally {
    await server.close();
  }
  assert.throws(() => new HttpClient({ maxBodyBytes: 0 }), RangeError);
});

Deno.test("a body within maxBodyBytes is read whole, and a streamed one has no total limit", async () => {
  const body = "x".repeat(1000);
  const server = new ScriptedServer(async (conn) => {
    while (await conn.readRequest() !== null) {
      await conn.send(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    }
  });
  const client = new HttpClient({ maxBodyBytes: 1000 });
  try {
    const url = new URL(`${server.url}/x`);
    assert.equal(await (await client.request({ method: "GET", url })).text(), body);
    assert.equal((await (await client.request({ method: "GET", url, stream: true })).text()).length, 1000);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a gzip bomb on a watch stream fails at the decoder's line limit, fast and in bounded memory", async () => {
  const outcome = await underBomb(640, {}, async (client, url, sample, signal) => {
    const res = await client.request({ method: "GET", url, signal, stream: true });
    for await (const _event of res.body.pipeThrough(new WatchDecoderStream())) sample();
  });
  assert.ok(outcome.error instanceof WatchDecodeError, String(outcome.error));
  assert.equal(outcome.error.reason, "lineTooLong");
  assertBounded(outcome);
});
