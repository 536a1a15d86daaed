import assert from "node:assert/strict";
import { HttpClient, type HttpClientOptions, TlsError } from "../../lib/http/mod.ts";
import { describeTlsFailure } from "../../lib/http/tls_failure.ts";
import type { LogFields, Logger } from "../../lib/log/logger.ts";
import { keepAliveHandler, ScriptedServer, type ServerConn } from "./_server.ts";

const fixtures = new URL("./fixtures/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, fixtures));
const CA = read("ca.crt");
const OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

/** A TLS server presenting the `name` leaf (localhost: 127.0.0.1 + localhost; other: kube.internal). */
function tlsServer(name: "localhost" | "other"): ScriptedServer {
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert: read(`${name}.crt`),
    key: read(`${name}.key`),
    alpnProtocols: ["http/1.1"],
  });
  const serve = keepAliveHandler(OK);
  return new ScriptedServer(async (conn: ServerConn) => {
    await (conn.conn as Deno.TlsConn).handshake();
    await serve(conn);
  }, listener);
}

async function withServer(
  name: "localhost" | "other",
  options: HttpClientOptions,
  fn: (client: HttpClient, url: URL) => Promise<void>,
): Promise<ScriptedServer> {
  const server = tlsServer(name);
  const client = new HttpClient(options);
  try {
    await fn(client, new URL(`https://127.0.0.1:${server.port}/x`));
  } finally {
    client.close();
    await server.close();
  }
  return server;
}

async function assertTlsError(client: HttpClient, url: URL, pattern: RegExp): Promise<void> {
  await assert.rejects(client.request({ method: "GET", url }), (err: unknown) => {
    assert.ok(err instanceof TlsError, String(err));
    assert.equal(err.name, "TlsError");
    assert.match(err.message, new RegExp(`^Cannot connect to ${url.origin.replaceAll(".", "\\.")}: `));
    assert.match(err.message, pattern);
    return true;
  });
}

Deno.test("a server certificate from the configured CA is trusted and the connection reused", async () => {
  const server = await withServer("localhost", { tls: { caCerts: [CA] } }, async (client, url) => {
    for (let i = 0; i < 2; i++) {
      assert.equal(await (await client.request({ method: "GET", url })).text(), "ok");
    }
  });
  assert.equal(server.accepted.length, 1);
});

Deno.test("a server certificate from an unknown CA is a TlsError saying so", async () => {
  await withServer("localhost", {}, async (client, url) => {
    await assertTlsError(client, url, /: certificate signed by unknown authority$/);
  });
});

Deno.test("a certificate not valid for the host is a TlsError naming the problem", async () => {
  await withServer("other", { tls: { caCerts: [CA] } }, async (client, url) => {
    await assertTlsError(client, url, /server certificate is not valid for the name/);
  });
});

Deno.test("serverName verifies the certificate against another name, with keep-alive", async () => {
  const server = await withServer(
    "other",
    { tls: { caCerts: [CA], serverName: "kube.internal" } },
    async (client, url) => {
      for (let i = 0; i < 2; i++) {
        assert.equal(await (await client.request({ method: "GET", url })).text(), "ok");
      }
    },
  );
  assert.equal(server.accepted.length, 1);
});

Deno.test("serverName still rejects a certificate that is not valid for it", async () => {
  await withServer("other", { tls: { caCerts: [CA], serverName: "wrong.internal" } }, async (client, url) => {
    await assertTlsError(client, url, /not valid for the name/);
  });
  await withServer("localhost", { tls: { serverName: "localhost" } }, async (client, url) => {
    await assertTlsError(client, url, /certificate signed by unknown authority/);
  });
});

Deno.test("serverName may be an IP address, checked against the IP SANs", async () => {
  await withServer("localhost", { tls: { caCerts: [CA], serverName: "127.0.0.1" } }, async (client, url) => {
    const viaName = new URL(url.href.replace("127.0.0.1", "localhost"));
    assert.equal(await (await client.request({ method: "GET", url: viaName })).text(), "ok");
  });
  await withServer("other", { tls: { caCerts: [CA], serverName: "10.0.0.1" } }, async (client, url) => {
    await assertTlsError(client, url, /not valid for the name/);
  });
});

Deno.test("insecureSkipVerify connects to an untrusted server and logs a warning", async () => {
  const warnings: string[] = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn(message: string, _fields?: LogFields) {
      warnings.push(message);
    },
    error() {},
    child() {
      return logger;
    },
  };
  await withServer("other", { tls: { insecureSkipVerify: true }, logger }, async (client, url) => {
    assert.equal(await (await client.request({ method: "GET", url })).text(), "ok");
  });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /verification is disabled/);
});

Deno.test("TLS failures from Deno and node:tls are described in plain words", () => {
  const cases: [unknown, string][] = [
    [new Error("invalid peer certificate: UnknownIssuer"), "certificate signed by unknown authority"],
    [new Error("received fatal alert: CertificateRequired"), "server requires a client certificate"],
    [new Error("invalid peer certificate: Expired"), "server certificate has expired"],
    [
      Object.assign(new Error("certificate has expired"), { code: "CERT_HAS_EXPIRED" }),
      "server certificate has expired",
    ],
    [
      Object.assign(new Error("self-signed certificate in certificate chain"), {
        code: "SELF_SIGNED_CERT_IN_CHAIN",
      }),
      "certificate signed by unknown authority",
    ],
    [
      new Error("received fatal alert: BadCertificate"),
      "server rejected the client certificate (received fatal alert: BadCertificate)",
    ],
    // node:tls adds a code; it is matched on but not shown, so both paths read the same.
    [
      Object.assign(new Error("received fatal alert: BadCertificate"), {
        code: "ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE",
      }),
      "server rejected the client certificate (received fatal alert: BadCertificate)",
    ],
    [
      Object.assign(new Error("received fatal alert: UnknownCA"), { code: "ERR_SSL_TLSV1_ALERT_UNKNOWN_CA" }),
      "server rejected the client certificate (received fatal alert: UnknownCA)",
    ],
    [
      Object.assign(new Error("received fatal alert: CertificateRequired"), {
        code: "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED",
      }),
      "server requires a client certificate",
    ],
    [
      Object.assign(new Error("unable to verify the first certificate"), {
        code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
      }),
      "certificate signed by unknown authority",
    ],
    [
      Object.assign(new Error("certificate is not yet valid"), { code: "CERT_NOT_YET_VALID" }),
      "server certificate is not valid yet",
    ],
  ];
  for (const [err, text] of cases) assert.equal(describeTlsFailure(err), text);
  assert.match(
    describeTlsFailure(new Error('invalid peer certificate: certificate not valid for name "1.2.3.4"')),
    /^server certificate is not valid for the name: certificate not valid for name "1\.2\.3\.4"$/,
  );
  const altnames = Object.assign(new Error("Hostname/IP does not match certificate's altnames: Host: a"), {
    code: "ERR_TLS_CERT_ALTNAME_INVALID",
  });
  assert.equal(
    describeTlsFailure(altnames),
    "server certificate is not valid for the name: Hostname/IP does not match certificate's altnames: Host: a",
  );
});
