// Which TLS stack carries a connection with a configured CA. Deno's own TLS frees a connection's
// memory when it closes; node:tls (Deno 2.9.6) leaves about 10 KiB per connection until the next
// major garbage collection, so a controller whose watches reconnect all day should stay off it.
// The verdicts themselves are attacked in tls_chain_test.ts and tls_trust_test.ts.
import assert from "node:assert/strict";
import type { ByteSocket } from "../../lib/http/connection.ts";
import { NodeTlsSocket } from "../../lib/http/node_tls_socket.ts";
import { TlsConnector } from "../../lib/http/tls.ts";
import type { TlsOptions } from "../../lib/http/types.ts";
import type { LogFields, Logger } from "../../lib/log/logger.ts";
import { chainServer, trustFixture } from "./_chain_server.ts";
import { fixture, mtlsServer } from "./_mtls_server.ts";

const CA = trustFixture("ca.crt");
const REQUEST = new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n");

function stackOf(socket: ByteSocket): "node:tls" | "deno" {
  return socket instanceof NodeTlsSocket ? "node:tls" : "deno";
}

/** Connects once to `port`, sends a request, reads the first bytes of the answer, closes. */
async function exchange(connector: TlsConnector, port: number): Promise<{ stack: string; answer: string }> {
  const socket = await connector.connect("127.0.0.1", port);
  try {
    await socket.write(REQUEST);
    const buf = new Uint8Array(256);
    const n = await socket.read(buf);
    return { stack: stackOf(socket), answer: new TextDecoder().decode(buf.subarray(0, n ?? 0)) };
  } finally {
    socket.close();
  }
}

function recordingLogger(lines: string[]): Logger {
  const logger: Logger = {
    debug() {},
    info(message: string, _fields?: LogFields) {
      lines.push(message);
    },
    warn() {},
    error() {},
    child: () => logger,
  };
  return logger;
}

Deno.test("a leaf the configured CA issued is carried by Deno's TLS, with and without tls-server-name", async () => {
  await using server = await chainServer(["localhost.crt"]);
  const first = await exchange(new TlsConnector({ caCerts: [CA] }), server.port);
  assert.deepEqual(first, { stack: "deno", answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" });
  await using named = await chainServer(["kube-internal.crt"]);
  const tls: TlsOptions = { caCerts: [CA], serverName: "kube.internal" };
  assert.equal((await exchange(new TlsConnector(tls), named.port)).stack, "deno");
});

Deno.test("with a client certificate, node:tls carries the connection and presents it", async () => {
  // Deno.connectTls, the one Deno API that presents a client certificate, leaves Nagle's algorithm
  // on: 44 ms per connection against kube-apiserver.
  await using server = await mtlsServer();
  const tls: TlsOptions = {
    caCerts: [fixture("ca.crt")],
    cert: fixture("client-ec-pkcs8.crt"),
    key: fixture("client-ec-pkcs8.key"),
  };
  const { stack, answer } = await exchange(new TlsConnector(tls), server.port);
  assert.equal(stack, "node:tls");
  assert.match(answer, /\r\n\r\nclient-ec-pkcs8$/);
});

Deno.test("a chain through an intermediate goes through node:tls once; then its leaf is known", async () => {
  await using server = await chainServer(["chained.crt", "intermediate.crt"]);
  const connector = new TlsConnector({ caCerts: [CA] });
  assert.equal((await exchange(connector, server.port)).stack, "node:tls");
  assert.equal((await exchange(connector, server.port)).stack, "deno");
  assert.equal((await exchange(connector, server.port)).stack, "deno");
  assert.equal(server.requests, 3);
});

Deno.test("when rustls refuses what our check accepts, the connector moves to node:tls and says so once", async () => {
  // A CA certificate that is the server's own, configured as the CA (an exact match, accepted as in
  // Go): rustls refuses a CA certificate as the server's (CaUsedAsEndEntity).
  await using server = await chainServer(["self-signed-ca.crt"]);
  const lines: string[] = [];
  const connector = new TlsConnector({ caCerts: [trustFixture("self-signed-ca.crt")] }, {
    logger: recordingLogger(lines),
  });
  for (let i = 0; i < 3; i++) assert.equal((await exchange(connector, server.port)).stack, "node:tls");
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /using node:tls for this client from now on/);
  assert.equal(server.requests, 3);
});

Deno.test("denoTls: false keeps every connection with a configured CA on node:tls", async () => {
  await using server = await chainServer(["localhost.crt"]);
  const connector = new TlsConnector({ caCerts: [CA] }, { denoTls: false });
  assert.equal((await exchange(connector, server.port)).stack, "node:tls");
});
