/**
 * The write fence holds through a slow connection: a KubeClient whose write passes the fence before
 * connecting, but whose TLS handshake outlasts the fence's deadline, sends nothing.
 */
import assert from "node:assert/strict";
import { KubeClient } from "../../lib/client/mod.ts";
import type { ClusterConfig } from "../../lib/config/types.ts";
import { LeaseFence, NotLeaderError } from "../../lib/leader/mod.ts";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import { SlowHandshakeProxy } from "../_util/slow_handshake_proxy.ts";
import { ScriptedServer, type ServerConn } from "../http/_server.ts";

const fixtures = new URL("../http/fixtures/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, fixtures));
const HANDSHAKE_DELAY_MS = 800;
const FENCE_MS = 300;

/** An API server over TLS that records when each request head arrives and answers 201 with the object. */
function apiServer(arrivals: { at: number; head: string }[]): ScriptedServer {
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
      return;
    }
    for (;;) {
      const req = await conn.readRequest();
      if (req === null) return;
      arrivals.push({ at: Date.now(), head: req.head });
      const body = req.body;
      await conn.send(
        `HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: ${
          new TextEncoder().encode(body).length
        }\r\n\r\n${body}`,
      );
    }
  }, listener);
}

function config(port: number): ClusterConfig {
  return {
    server: new URL(`https://127.0.0.1:${port}`),
    tls: { caCerts: [read("ca.crt")] },
    namespace: "team",
    source: "test",
    inCluster: false,
    credentials: { get: () => Promise.resolve({ token: "t" }), invalidate: () => {} },
  };
}

const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "team" } };

Deno.test("a fenced write that passes the fence but not a slow TLS handshake never reaches the server", async () => {
  const arrivals: { at: number; head: string }[] = [];
  const server = apiServer(arrivals);
  const proxy = new SlowHandshakeProxy(server.port, HANDSHAKE_DELAY_MS);
  const fence = new LeaseFence();
  const client = new KubeClient(config(proxy.port), { writeFence: fence });
  let deadline = 0;
  try {
    deadline = Date.now() + FENCE_MS;
    fence.grant("team/lease", deadline);
    await assert.rejects(client.create(CONFIG_MAPS, cm), (err: unknown) => {
      assert.ok(err instanceof NotLeaderError, String(err));
      assert.match(
        err.message,
        /^Write refused: not holding Lease "team\/lease" \(its renew deadline passed \d+ ms ago\)$/,
      );
      return true;
    });
    // The same path takes a write while the fence holds, so the refused one was stopped by the fence.
    fence.grant("team/lease", Date.now() + 60_000);
    const created = await client.create(CONFIG_MAPS, cm);
    assert.equal(created.metadata.name, "a");
  } finally {
    await client[Symbol.asyncDispose]();
    await proxy.close();
    await server.close();
  }
  assert.equal(arrivals.length, 1, "only the write made while leading reached the server");
  assert.match(arrivals[0]!.head, /^POST \/api\/v1\/namespaces\/team\/configmaps HTTP\/1\.1/);
  assert.ok(arrivals[0]!.at > deadline);
});
