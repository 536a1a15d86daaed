// Which certificate authorities a connection trusts. The probes run in a subprocess whose
// DENO_CERT adds a test CA to the process's default roots, as a publicly trusted CA would be.
import assert from "node:assert/strict";
import { keepAliveHandler, ScriptedServer, type ServerConn } from "./_server.ts";
import { type ChainServer, chainServer, trustFixturePath } from "./_chain_server.ts";
import type { Probe, ProbeResult } from "./_tls_probe.ts";

const fixtures = new URL("./fixtures/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, fixtures));
const probeScript = new URL("./_tls_probe.ts", import.meta.url);

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

/** Runs `probes` in one subprocess whose default roots include `trustedCaFile`. */
async function probeWithDefaultRoots(
  trustedCaFile: string,
  probes: readonly Probe[],
): Promise<ProbeResult[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1,localhost",
      "--allow-read",
      probeScript.pathname,
      JSON.stringify(probes),
    ],
    env: { DENO_CERT: trustedCaFile, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout)) as ProbeResult[];
}

Deno.test("without caCerts, a certificate from a CA among the process's default roots is trusted", async () => {
  const server = localhostServer();
  try {
    const [result] = await probeWithDefaultRoots(new URL("ca.crt", fixtures).pathname, [
      { url: `https://127.0.0.1:${server.port}/` },
    ]);
    assert.deepEqual(result, { ok: true, body: "ok" });
  } finally {
    await server.close();
  }
});

Deno.test("with caCerts, only that CA is trusted: a default-trusted certificate is an unknown authority", async () => {
  const server = localhostServer();
  try {
    const unrelatedCa = new URL("ca2.crt", fixtures).pathname;
    const [result] = await probeWithDefaultRoots(new URL("ca.crt", fixtures).pathname, [
      { url: `https://127.0.0.1:${server.port}/`, caFile: unrelatedCa },
    ]);
    assert.equal(result?.ok, false, JSON.stringify(result));
    assert.equal(result?.name, "TlsError");
    assert.match(result?.message ?? "", /: certificate signed by unknown authority/);
  } finally {
    await server.close();
  }
});

/** One attack or baseline against the system roots: a chain, how the client connects, the verdict. */
interface Case {
  readonly chain: readonly string[];
  readonly host?: "127.0.0.1" | "localhost";
  readonly serverName?: string;
  readonly clientCert?: boolean;
  /** undefined: accepted; else the refusal's message must match. */
  readonly refused?: RegExp;
}

const UNKNOWN = /certificate signed by unknown authority/;
// rustls refuses a chain with a v1 certificate before it looks at signatures.
const NOT_TRUSTED = /certificate signed by unknown authority|only v3 certificates are accepted/;
const CASES: readonly Case[] = [
  { chain: ["localhost.crt"] },
  { chain: ["localhost.crt"], host: "localhost" },
  { chain: ["forged-v1.crt"], host: "localhost", refused: NOT_TRUSTED },
  { chain: ["forged-v3.crt"], refused: UNKNOWN },
  { chain: ["self-signed.crt"], refused: UNKNOWN },
  { chain: ["chained.crt", "intermediate.crt"] },
  { chain: ["chained.crt", "forged-intermediate.crt"], refused: UNKNOWN },
  { chain: ["chained.crt", "forged-intermediate-v1.crt"], refused: NOT_TRUSTED },
  { chain: ["expired.crt"], refused: /server certificate has expired/ },
  { chain: ["kube-internal.crt"], refused: /not valid for the name/ },
  { chain: ["other-ip.crt"], refused: /not valid for the name/ },
  { chain: ["kube-internal.crt"], serverName: "kube.internal" },
  { chain: ["kube-internal.crt"], serverName: "wrong.internal", refused: /not valid for the name/ },
  { chain: ["forged-v1-kube-internal.crt"], serverName: "kube.internal", refused: NOT_TRUSTED },
  {
    chain: ["kube-internal.crt"],
    serverName: "kube.internal",
    clientCert: true,
    refused:
      /cannot verify the server as "kube\.internal" against the system roots with a client certificate/,
  },
];

Deno.test("with the system roots (no caCerts), forged, unsuitable and misnamed chains are refused", async () => {
  const servers: ChainServer[] = [];
  try {
    for (const c of CASES) servers.push(await chainServer(c.chain));
    const client = new URL("client-ec-pkcs8.crt", fixtures).pathname;
    const probes = CASES.map((c, i): Probe => ({
      url: `https://${c.host ?? "127.0.0.1"}:${servers[i]!.port}/`,
      ...(c.serverName !== undefined && { serverName: c.serverName }),
      ...(c.clientCert === true && { certFile: client, keyFile: client.replace(/\.crt$/, ".key") }),
    }));
    const results = await probeWithDefaultRoots(trustFixturePath("ca.crt"), probes);
    CASES.forEach((c, i) => {
      const result = results[i]!;
      const label = `${c.chain.join(" + ")}${c.serverName ? ` as ${c.serverName}` : ""}: ${
        JSON.stringify(result)
      }`;
      if (c.refused === undefined) {
        assert.deepEqual(result, { ok: true, body: "ok" }, label);
      } else {
        assert.equal(result.ok, false, label);
        assert.equal(result.name, "TlsError", label);
        assert.match(result.message ?? "", c.refused, label);
      }
      assert.equal(servers[i]!.requests, c.refused === undefined ? 1 : 0, label);
    });
  } finally {
    for (const server of servers) await server[Symbol.asyncDispose]();
  }
});

/** One attack or baseline with a configured CA while the process's default roots hold the rogue CA. */
interface CaCase {
  readonly chain: readonly string[];
  readonly host?: "127.0.0.1" | "localhost";
  readonly serverName?: string;
  readonly clientCert?: boolean;
  readonly refused?: RegExp;
}

// Deno's TLS verifies against the default roots plus the configured CA, so with the rogue CA among
// the default roots it accepts every forgery below: only kubeloop's own check can refuse them.
const WITH_CA_CASES: readonly CaCase[] = [
  { chain: ["localhost.crt"] },
  { chain: ["localhost.crt"], clientCert: true },
  { chain: ["chained.crt", "intermediate.crt"] },
  { chain: ["forged-v3.crt"], refused: UNKNOWN },
  { chain: ["forged-v3.crt"], host: "localhost", refused: UNKNOWN },
  { chain: ["forged-v3.crt"], clientCert: true, refused: UNKNOWN },
  { chain: ["forged-v3.crt"], serverName: "localhost", refused: UNKNOWN },
  { chain: ["forged-v3.crt", "rogue-ca.crt"], refused: UNKNOWN },
  { chain: ["chained.crt", "forged-intermediate.crt"], refused: UNKNOWN },
  { chain: ["chained.crt", "forged-intermediate.crt"], clientCert: true, refused: UNKNOWN },
];

Deno.test("with caCerts, forgeries by a CA among the process's default roots are refused on every path", async () => {
  const servers: ChainServer[] = [];
  try {
    for (const c of WITH_CA_CASES) servers.push(await chainServer(c.chain));
    const client = new URL("client-ec-pkcs8.crt", fixtures).pathname;
    const probes = WITH_CA_CASES.map((c, i): Probe => ({
      url: `https://${c.host ?? "127.0.0.1"}:${servers[i]!.port}/`,
      caFile: trustFixturePath("ca.crt"),
      ...(c.serverName !== undefined && { serverName: c.serverName }),
      ...(c.clientCert === true && { certFile: client, keyFile: client.replace(/\.crt$/, ".key") }),
    }));
    const results = await probeWithDefaultRoots(trustFixturePath("rogue-ca.crt"), probes);
    WITH_CA_CASES.forEach((c, i) => {
      const result = results[i]!;
      const label = `${c.chain.join(" + ")}${c.serverName ? ` as ${c.serverName}` : ""}${
        c.clientCert ? " with a client certificate" : ""
      }: ${JSON.stringify(result)}`;
      if (c.refused === undefined) {
        assert.deepEqual(result, { ok: true, body: "ok" }, label);
      } else {
        assert.equal(result.ok, false, label);
        assert.equal(result.name, "TlsError", label);
        assert.match(result.message ?? "", c.refused, label);
      }
      assert.equal(servers[i]!.requests, c.refused === undefined ? 1 : 0, label);
    });
  } finally {
    for (const server of servers) await server[Symbol.asyncDispose]();
  }
});
