/**
 * The request's `beforeWrite` gate runs right before the first byte is written: after connecting and
 * the TLS handshake, however long they take, and on each attempt. Refusing sends nothing.
 */
import assert from "node:assert/strict";
import { HttpClient } from "../../lib/http/mod.ts";
import { SlowHandshakeProxy } from "../_util/slow_handshake_proxy.ts";
import { keepAliveHandler, ScriptedServer, type ServerConn } from "./_server.ts";

const fixtures = new URL("./fixtures/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, fixtures));
const CA = read("ca.crt");
const OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
const HANDSHAKE_DELAY_MS = 800;

/** A TLS server for `localhost` that records each request head it receives. */
function tlsServer(heads: string[]): ScriptedServer {
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert: read("localhost.crt"),
    key: read("localhost.key"),
    alpnProtocols: ["http/1.1"],
  });
  return new ScriptedServer(async (conn: ServerConn) => {
    try {
      await (conn.conn as Deno.TlsConn).handshake();
    } catch {
      return; // the client gave up during the handshake
    }
    for (;;) {
      const req = await conn.readRequest();
      if (req === null) return;
      heads.push(req.head);
      await conn.send(OK);
    }
  }, listener);
}

Deno.test("a gate refusing after a slow TLS handshake sends nothing; the same gate ran after the handshake", async () => {
  const heads: string[] = [];
  const server = tlsServer(heads);
  const proxy = new SlowHandshakeProxy(server.port, HANDSHAKE_DELAY_MS);
  const client = new HttpClient({ tls: { caCerts: [CA] } });
  const url = new URL(`https://127.0.0.1:${proxy.port}/write`);
  try {
    const started = performance.now();
    const gateAt: number[] = [];
    const refusal = new Error("refused: past the deadline");
    // The gate allows 300 ms from the start: a check before connecting would pass.
    const gate = () => {
      gateAt.push(performance.now() - started);
      if (performance.now() - started > 300) throw refusal;
    };
    await assert.rejects(client.request({ method: "POST", url, body: "x", beforeWrite: gate }), (err) => {
      assert.equal(err, refusal);
      return true;
    });
    assert.equal(gateAt.length, 1, "refusals are not retried");
    assert.ok(gateAt[0]! >= HANDSHAKE_DELAY_MS, `the gate ran ${gateAt[0]} ms in, after the handshake`);
    // The same server and proxy take a write whose gate passes, so the refused one was stopped by the gate.
    const res = await client.request({ method: "POST", url, body: "y", beforeWrite: () => {} });
    assert.equal(await res.text(), "ok");
  } finally {
    client.close();
    await proxy.close();
    await server.close();
  }
  assert.equal(heads.length, 1, "only the allowed write reached the server");
  assert.match(heads[0]!, /^POST \/write HTTP\/1\.1/);
});

Deno.test("the gate runs again before a retry's first byte, and a refusal on a pooled connection is not retried", async () => {
  let served = 0;
  const server = new ScriptedServer(async (conn, index) => {
    if (index === 0) {
      // Answers once, then drops the connection on the next request without answering it.
      await conn.readRequest();
      await conn.send(OK);
      served++;
      await conn.readRequest();
      return;
    }
    await keepAliveHandler(OK)(conn);
  });
  const client = new HttpClient();
  const url = new URL(server.url);
  try {
    let calls = 0;
    const count = () => void calls++;
    assert.equal(await (await client.request({ method: "GET", url, beforeWrite: count })).text(), "ok");
    assert.equal(await (await client.request({ method: "GET", url, beforeWrite: count })).text(), "ok");
    assert.equal(calls, 3, "once for the first request, twice for the retried one");
    assert.equal(server.accepted.length, 2);
    assert.equal(client.idleConnections, 1);
    await assert.rejects(
      client.request({
        method: "GET",
        url,
        beforeWrite: () => {
          throw new Error("no");
        },
      }),
      /^Error: no$/,
    );
    assert.equal(server.accepted.length, 2, "no new connection for a refused request");
    assert.equal(client.idleConnections, 0, "the refused request's connection was closed");
  } finally {
    client.close();
    await server.close();
  }
  assert.equal(served, 1);
});
