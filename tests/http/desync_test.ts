/**
 * A server that sends one extra, unsolicited response after answering on a kept-alive connection must
 * not shift the answers of later requests: the connection carrying the extra bytes is closed, never
 * reused, whether the bytes came with the body, while the connection was idle, or just before the next
 * request.
 */
import assert from "node:assert/strict";
import { HttpClient } from "../../lib/http/mod.ts";
import type { LogFields, Logger } from "../../lib/log/logger.ts";
import { concat, enc, gzip } from "./_helpers.ts";
import { ScriptedServer, type ServerConn } from "./_server.ts";

function tick(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

type Framing = "length" | "chunked" | "gzip length" | "gzip chunked";
type Timing = "same segment" | "50 ms later" | "just before the next request";

/** A complete response whose body is `text`, framed as asked. */
async function response(text: string, framing: Framing): Promise<Uint8Array> {
  const zipped = framing.startsWith("gzip");
  const body = zipped ? await gzip(enc.encode(text)) : enc.encode(text);
  const coding = zipped ? "Content-Encoding: gzip\r\n" : "";
  if (framing.endsWith("chunked")) {
    const half = Math.floor(body.length / 2);
    const chunk = (b: Uint8Array) =>
      concat(enc.encode(`${b.length.toString(16)}\r\n`), b, enc.encode("\r\n"));
    return concat(
      enc.encode(`HTTP/1.1 200 OK\r\n${coding}Transfer-Encoding: chunked\r\n\r\n`),
      chunk(body.subarray(0, half)),
      chunk(body.subarray(half)),
      enc.encode("0\r\n\r\n"),
    );
  }
  return concat(enc.encode(`HTTP/1.1 200 OK\r\n${coding}Content-Length: ${body.length}\r\n\r\n`), body);
}

function capture(): Logger & { warnings: LogFields[] } {
  const warnings: LogFields[] = [];
  const logger = {
    warnings,
    debug() {},
    info() {},
    warn(_message: string, fields?: LogFields) {
      warnings.push(fields ?? {});
    },
    error() {},
    child: () => logger,
  };
  return logger;
}

/**
 * Serves `/<path>` with a body naming the path. On the first connection, after answering `/a` it
 * sends an extra response (body "injected") at `timing`; `injectNow` lets the test say when.
 */
function injectingServer(framing: Framing, timing: Timing, injectNow: Promise<void>, injected: () => void) {
  return new ScriptedServer(async (conn: ServerConn, index) => {
    for (;;) {
      const req = await conn.readRequest();
      if (req === null) return;
      const path = /^GET (\S+)/.exec(req.head)![1]!;
      const answer = await response(path, framing);
      if (index > 0 || path !== "/a") {
        await conn.send(answer);
        continue;
      }
      const extra = await response("injected", framing);
      if (timing === "same segment") {
        await conn.send(concat(answer, extra));
      } else {
        await conn.send(answer);
        await (timing === "50 ms later" ? tick(50) : injectNow);
        await conn.send(extra);
      }
      injected();
    }
  });
}

for (const framing of ["length", "chunked", "gzip length", "gzip chunked"] as const) {
  for (const timing of ["same segment", "50 ms later", "just before the next request"] as const) {
    Deno.test(`an extra response (${framing}, ${timing}) never answers a later request`, async () => {
      let injectNow!: () => void;
      const now = new Promise<void>((resolve) => injectNow = resolve);
      let injected!: () => void;
      const done = new Promise<void>((resolve) => injected = resolve);
      const server = injectingServer(framing, timing, now, injected);
      const logger = capture();
      const client = new HttpClient({ logger });
      const get = async (path: string) =>
        await (await client.request({ method: "GET", url: new URL(server.url + path) })).text();
      try {
        assert.equal(await get("/a"), "/a");
        injectNow();
        await done;
        // "50 ms later": the extra bytes come 50 ms after the body and the next request 50 ms after
        // them. "Just before": the next request follows the extra bytes by one turn of the event loop
        // (a timer), the least time in which the runtime can have delivered them to the client.
        await tick(timing === "50 ms later" ? 50 : 0);
        assert.equal(await get("/b"), "/b");
        assert.equal(await get("/c"), "/c");
        assert.equal(server.accepted.length, 2, "the connection that carried the extra bytes was dropped");
        if (timing !== "same segment") {
          assert.equal(logger.warnings.length, 1);
          assert.ok(Number(logger.warnings[0]!["bytes"]) > 0);
        }
      } finally {
        client.close();
        await server.close();
      }
      assert.deepEqual(server.errors, []);
    });
  }
}

Deno.test("an idle connection the server closes is dropped from the pool at once", async () => {
  const server = new ScriptedServer(async (conn, index) => {
    await conn.readRequest();
    await conn.send(await response(`conn ${index}`, "length"));
    if (index === 0) return await tick(50); // then closes the idle connection
    await conn.waitForClose();
  });
  const client = new HttpClient();
  try {
    const res = await client.request({ method: "GET", url: new URL(server.url) });
    assert.equal(await res.text(), "conn 0");
    assert.equal(client.idleConnections, 1);
    for (let i = 0; i < 100 && client.idleConnections > 0; i++) await tick(5);
    assert.equal(client.idleConnections, 0, "the closed connection left the pool without a request");
    const again = await client.request({ method: "GET", url: new URL(server.url) });
    assert.equal(await again.text(), "conn 1");
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("an idle pooled connection does not keep the process alive", async () => {
  const script = `
    import { HttpClient } from ${JSON.stringify(new URL("../../lib/http/mod.ts", import.meta.url).href)};
    const port = Number(Deno.args[0]);
    const client = new HttpClient();
    const res = await client.request({ method: "GET", url: new URL("http://127.0.0.1:" + port + "/") });
    await res.text();
    console.log("idle", client.idleConnections);
  `;
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await conn.send(await response("ok", "length"));
    await conn.waitForClose();
  });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", "--quiet", script, String(server.port)],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill(), 20_000);
    const out = await child.output();
    clearTimeout(timer);
    assert.equal(new TextDecoder().decode(out.stdout).trim(), "idle 1");
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  } finally {
    await server.close();
  }
});
