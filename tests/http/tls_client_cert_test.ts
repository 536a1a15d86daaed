// Client certificates over the configured-CA (node:tls) path, in every key format a kubeconfig
// may hold, and the TLS failures around them, worded as on Deno's own TLS path.
import assert from "node:assert/strict";
import { HttpClient, TlsError, type TlsOptions } from "../../lib/http/mod.ts";
import { fixture, mtlsServer } from "./_mtls_server.ts";

const CA = fixture("ca.crt");
const KEY_FORMATS = [
  ["RSA PKCS#1", "rsa-pkcs1", /^-----BEGIN RSA PRIVATE KEY-----/],
  ["RSA PKCS#8", "rsa-pkcs8", /^-----BEGIN PRIVATE KEY-----/],
  ["EC SEC1 after an EC PARAMETERS block", "ec-sec1", /^-----BEGIN EC PARAMETERS-----/],
  ["EC PKCS#8", "ec-pkcs8", /^-----BEGIN PRIVATE KEY-----/],
] as const;

async function get(tls: TlsOptions, port: number): Promise<string> {
  await using client = new HttpClient({ tls });
  const res = await client.request({ method: "GET", url: new URL(`https://127.0.0.1:${port}/`) });
  return await res.text();
}

async function assertTlsError(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof TlsError, String(err));
    assert.match(err.message, /^Cannot connect to https:\/\/127\.0\.0\.1:\d+: /);
    assert.match(err.message, pattern);
    return true;
  });
}

for (const [label, name, pem] of KEY_FORMATS) {
  Deno.test(`a client certificate with an ${label} key is presented with a configured CA`, async () => {
    const key = fixture(`client-${name}.key`);
    assert.match(key, pem);
    await using server = await mtlsServer();
    const cn = await get({ caCerts: [CA], cert: fixture(`client-${name}.crt`), key }, server.port);
    assert.equal(cn, `client-${name}`);
  });
}

Deno.test("an EC SEC1 key without an EC PARAMETERS block is presented too", async () => {
  const key = fixture("client-ec-sec1.key").replace(
    /-----BEGIN EC PARAMETERS-----[^]*?-----END EC PARAMETERS-----\s*/,
    "",
  );
  assert.match(key, /^-----BEGIN EC PRIVATE KEY-----/);
  await using server = await mtlsServer();
  assert.equal(
    await get({ caCerts: [CA], cert: fixture("client-ec-sec1.crt"), key }, server.port),
    "client-ec-sec1",
  );
});

Deno.test("a server that requires a client certificate, and got none, is a TlsError saying so", async () => {
  await using server = await mtlsServer();
  await assertTlsError(get({ caCerts: [CA] }, server.port), /: server requires a client certificate$/);
});

Deno.test("an expired server certificate is a TlsError saying so", async () => {
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert: fixture("expired.crt"),
    key: fixture("expired.key"),
  });
  const accepted = (async () => {
    for await (const conn of listener) {
      await conn.handshake().catch(() => {});
      conn.close();
    }
  })();
  try {
    const port = (listener.addr as Deno.NetAddr).port;
    await assertTlsError(
      get({ caCerts: [fixture("ca2.crt")] }, port),
      /: server certificate has expired \(valid until 2020-01-02T00:00:00Z\)$/,
    );
  } finally {
    listener.close();
    await accepted;
  }
});

Deno.test("a server that refuses the client certificate with an alert is a TlsError saying so", async () => {
  // A byte-level server: it reads the ClientHello and answers with a fatal bad_certificate alert.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const answered = (async () => {
    const conn = await listener.accept();
    await conn.read(new Uint8Array(4096));
    await conn.write(new Uint8Array([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 42]));
    await conn.read(new Uint8Array(4096)).catch(() => null);
    conn.close();
  })();
  try {
    const port = (listener.addr as Deno.NetAddr).port;
    const tls = { caCerts: [CA], cert: fixture("client-ec-pkcs8.crt"), key: fixture("client-ec-pkcs8.key") };
    await assertTlsError(
      get(tls, port),
      /: server rejected the client certificate \(received fatal alert: BadCertificate\)$/,
    );
  } finally {
    await answered;
    listener.close();
  }
});
