/**
 * A server that answers with interim (1xx) heads forever, or trickles its head, must not keep the client
 * parsing: the heads of one response share one byte bound, their number is bounded, and the whole head
 * has a deadline that bytes arriving do not reset.
 */
import assert from "node:assert/strict";
import { HttpClient, ProtocolError, TimeoutError } from "../../lib/http/mod.ts";
import { ScriptedServer, type ServerConn } from "./_server.ts";

/** Writes `unit` over and over until the client goes away; resolves with the number of writes. */
async function flood(conn: ServerConn, unit: string, pauseMs = 0): Promise<number> {
  let writes = 0;
  try {
    for (;;) {
      await conn.send(unit);
      writes++;
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  } catch {
    return writes; // the client closed the connection
  }
}

/** A client whose caller gives up after 10 s: the old code stopped only there. */
async function requestFlooded(
  server: ScriptedServer,
  client: HttpClient,
): Promise<{ err: unknown; ms: number }> {
  const started = performance.now();
  try {
    const res = await client.request({
      method: "GET",
      url: new URL(`${server.url}/flood`),
      signal: AbortSignal.timeout(10_000),
    });
    await res.cancel();
    return { err: undefined, ms: performance.now() - started };
  } catch (err) {
    return { err, ms: performance.now() - started };
  }
}

Deno.test("endless 100 Continue heads stop after 8 interim responses with an error naming the limit", async () => {
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await flood(conn, "HTTP/1.1 100 Continue\r\n\r\n");
  });
  const client = new HttpClient();
  try {
    const { err, ms } = await requestFlooded(server, client);
    assert.ok(err instanceof ProtocolError, String(err));
    assert.match(
      err.message,
      /^Invalid response from http:\/\/127\.0\.0\.1:\d+\/flood: more than 8 interim \(1xx\) responses before the final one$/,
    );
    assert.ok(ms < 5_000, `stopped after ${ms} ms`);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("interim heads count towards maxHeaderBytes together with the final head", async () => {
  // Four 16 KiB interim heads pass the count bound but not the shared byte bound.
  const big = `HTTP/1.1 103 Early Hints\r\nLink: <${"x".repeat(16_000)}>\r\n\r\n`;
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await flood(conn, big);
  });
  const client = new HttpClient();
  try {
    const { err, ms } = await requestFlooded(server, client);
    assert.ok(err instanceof ProtocolError, String(err));
    assert.match(
      err.message,
      /: the response heads \(4 interim 1xx and the final one\) are larger than 65536 bytes together \(maxHeaderBytes\)$/,
    );
    assert.ok(ms < 5_000, `stopped after ${ms} ms`);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a few interim heads within the bounds are skipped", async () => {
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await conn.send(
      "HTTP/1.1 100 Continue\r\n\r\n".repeat(4) + "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n".repeat(4) +
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    );
    await conn.waitForClose();
  });
  const client = new HttpClient();
  try {
    const res = await client.request({ method: "GET", url: new URL(server.url) });
    assert.equal(await res.text(), "ok");
  } finally {
    client.close();
    await server.close();
  }
});

const READ_TIMEOUT_MS = 300;

for (
  const [what, unit] of [
    ["a head trickled one byte at a time", "X"],
    ["interim heads trickled one at a time", "HTTP/1.1 100 Continue\r\n\r\n"],
  ] as const
) {
  Deno.test(`${what}: the whole-head deadline fires, though each read is quick`, async () => {
    const server = new ScriptedServer(async (conn) => {
      await conn.readRequest();
      if (unit === "X") await conn.send("HTTP/1.1 200 OK\r\nX-Slow: ");
      // A pause well under the per-read timeout: only a deadline for the whole head can fire.
      await flood(conn, unit, 60);
    });
    const client = new HttpClient({ readTimeoutMs: READ_TIMEOUT_MS, maxHeaderBytes: 1_000_000 });
    try {
      const { err, ms } = await requestFlooded(server, client);
      assert.ok(err instanceof TimeoutError, String(err));
      assert.match(err.message, /: not complete after 300 ms$/);
      assert.ok(ms >= READ_TIMEOUT_MS && ms < 5_000, `stopped after ${ms} ms`);
    } finally {
      client.close();
      await server.close();
    }
  });
}
