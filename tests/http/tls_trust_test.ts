// Which certificate authorities a connection trusts. The probe runs in a subprocess whose
// DENO_CERT adds the test CA to the process's default roots, as a publicly trusted CA would be.
import assert from "node:assert/strict";
import { keepAliveHandler, ScriptedServer, type ServerConn } from "./_server.ts";

const fixtures = new URL("./fixtures/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, fixtures));
const probe = new URL("./_tls_probe.ts", import.meta.url);

interface ProbeResult {
  ok: boolean;
  body?: string;
  name?: string;
  message?: string;
}

/** A TLS server presenting the localhost leaf of the test CA (fixtures/ca.crt). */
function localhostServer(): ScriptedServer {
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert: read("localhost.crt"),
    key: read("localhost.key"),
    alpnProtocols: ["http/1.1"],
  });
  const serve = keepAliveHandler("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  return new ScriptedServer(async (conn: ServerConn) => {
    await (conn.conn as Deno.TlsConn).handshake().catch(() => {});
    await serve(conn).catch(() => {});
  }, listener);
}

/** Runs the probe with the test CA among its default roots and `caFile` as the configured CA. */
async function probeWithTrustedTestCa(url: string, caFile: string): Promise<ProbeResult> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net=127.0.0.1", "--allow-read", probe.pathname, url, caFile],
    env: { DENO_CERT: new URL("ca.crt", fixtures).pathname, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout).trim();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(stdout) as ProbeResult;
}

Deno.test("without caCerts, a certificate from a CA among the process's default roots is trusted", async () => {
  const server = localhostServer();
  try {
    const result = await probeWithTrustedTestCa(`https://127.0.0.1:${server.port}/`, "-");
    assert.deepEqual(result, { ok: true, body: "ok" });
  } finally {
    await server.close();
  }
});

Deno.test("with caCerts, only that CA is trusted: a default-trusted certificate is an unknown authority", async () => {
  const server = localhostServer();
  try {
    const unrelatedCa = new URL("ca2.crt", fixtures).pathname;
    const result = await probeWithTrustedTestCa(`https://127.0.0.1:${server.port}/`, unrelatedCa);
    assert.equal(result.ok, false, JSON.stringify(result));
    assert.equal(result.name, "TlsError");
    assert.match(result.message ?? "", /: certificate signed by unknown authority$/);
  } finally {
    await server.close();
  }
});
