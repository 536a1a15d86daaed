// connectNodeTls while our asynchronous check of the server's chain runs: nothing is written before
// the verdict, a refusal closes the socket, and a socket that fails during the check settles the
// connection once, with no unhandled rejection (Deno's test runner fails on one). The verdicts
// themselves are attacked in tls_chain_test.ts.
import assert from "node:assert/strict";
import { connectNodeTls } from "../../lib/http/node_tls_connect.ts";
import { ServerCertificateError, type ServerCertificateVerifier } from "../../lib/x509/server_certificate.ts";
import { chainServer, trustFixture } from "./_chain_server.ts";

const CA = trustFixture("ca.crt");

/** A verifier whose verdict is `decide`, which runs when the handshake is done. */
function verifierThat(decide: () => Promise<void>): ServerCertificateVerifier {
  return { verify: decide } as unknown as ServerCertificateVerifier;
}

/** Forwards one connection to `port`; `corrupt()` sends the client bytes that are no TLS record. */
function proxyTo(port: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  const client = Promise.withResolvers<Deno.Conn>();
  const pump = async (from: Deno.Conn, to: Deno.Conn) => {
    const buf = new Uint8Array(16384);
    try {
      for (let n = await from.read(buf); n !== null; n = await from.read(buf)) {
        await to.write(buf.subarray(0, n));
      }
    } catch {
      // Either side closed: the test is over for this direction.
    }
  };
  const pumps = (async () => {
    const downstream = await listener.accept();
    const upstream = await Deno.connect({ hostname: "127.0.0.1", port });
    conns.push(downstream, upstream);
    client.resolve(downstream);
    await Promise.all([pump(downstream, upstream), pump(upstream, downstream)]);
  })();
  return {
    port: listener.addr.port,
    async corrupt() {
      await (await client.promise).write(new Uint8Array([0x17, 0x03, 0x03, 0x00, 0x05, 1, 2, 3, 4, 5]));
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Already closed by its pump.
        }
      }
      await pumps;
    },
  };
}

Deno.test("a refusal after an asynchronous check closes the socket and sends nothing", async () => {
  await using server = await chainServer(["localhost.crt"]);
  const refusal = new ServerCertificateError("refused by the test");
  const verifier = verifierThat(async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    throw refusal;
  });
  await assert.rejects(connectNodeTls("127.0.0.1", server.port, { caCerts: [CA] }, verifier), refusal);
  assert.equal(server.requests, 0);
  // The server sees the connection close (it would stay open until the test's end otherwise).
  for (const deadline = Date.now() + 2000; server.open > 0 && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(server.open, 0);
});

Deno.test("a socket that fails during the check rejects the connection once; the late verdict is ignored", async () => {
  await using server = await chainServer(["localhost.crt"]);
  await using proxy = proxyTo(server.port);
  const settled = Promise.withResolvers<void>();
  let verdictGiven = false;
  const verifier = verifierThat(async () => {
    await proxy.corrupt();
    await settled.promise;
    verdictGiven = true; // and it accepts: too late to matter
  });
  const connecting = connectNodeTls("127.0.0.1", proxy.port, { caCerts: [CA] }, verifier);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    connecting.then(() => "connected", (err: Error) => err),
    new Promise((resolve) => timer = setTimeout(resolve, 5000, "unsettled")),
  ]);
  clearTimeout(timer);
  settled.resolve();
  assert.ok(outcome instanceof Error, `the connection was ${outcome}`);
  assert.ok(!(outcome instanceof ServerCertificateError), outcome.message);
  // The accepting verdict arrives after the error and changes nothing.
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(verdictGiven, true);
  await assert.rejects(connecting);
});
