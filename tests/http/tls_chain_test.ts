// Attacks on the trust decision with a configured CA (kubeconfig certificate-authority, in-cluster
// ca.crt), over real sockets. The hostile server presents forged or unsuitable chains for the
// fixtures in fixtures/trust/ (see its README.md); the client trusts only fixtures/trust/ca.crt.
import assert from "node:assert/strict";
import { HttpClient, type TlsOptions } from "../../lib/http/mod.ts";
import type { Logger } from "../../lib/log/logger.ts";
import { chainServer, trustFixture } from "./_chain_server.ts";

const CA = trustFixture("ca.crt");

interface Outcome {
  readonly ok: boolean;
  readonly name?: string;
  readonly message?: string;
  /** Requests the server received: a refused connection must not have sent one (nor a token). */
  readonly requests: number;
}

/** Serves `chain`, sends one GET with `tls` (CA = fixtures/trust/ca.crt unless given) to `host`. */
async function attempt(
  chain: readonly string[],
  tls: TlsOptions = { caCerts: [CA] },
  host = "127.0.0.1",
  logger?: Logger,
): Promise<Outcome> {
  await using server = await chainServer(chain);
  await using client = new HttpClient({ tls, ...(logger && { logger }) });
  const url = new URL(`https://${host}:${server.port}/`);
  try {
    const body =
      await (await client.request({ method: "GET", url, headers: { Authorization: "Bearer s3cret" } }))
        .text();
    assert.equal(body, "ok");
    return { ok: true, requests: server.requests };
  } catch (err) {
    const e = err as Error;
    return { ok: false, name: e.name, message: e.message, requests: server.requests };
  }
}

function assertAccepted(outcome: Outcome): void {
  assert.deepEqual(outcome, { ok: true, requests: 1 });
}

function assertRefused(outcome: Outcome, reason: RegExp): void {
  assert.equal(outcome.ok, false, "the connection was accepted");
  assert.equal(outcome.name, "TlsError", outcome.message);
  assert.match(outcome.message ?? "", /^Cannot connect to https:\/\/(127\.0\.0\.1|localhost):\d+: /);
  assert.match(outcome.message ?? "", reason);
  assert.equal(outcome.requests, 0, "a request (with its bearer token) reached the server");
}

const UNKNOWN_AUTHORITY = /certificate signed by unknown authority/;

Deno.test("a certificate of the configured CA is accepted (baseline for the attacks below)", async () => {
  assertAccepted(await attempt(["localhost.crt"]));
  assertAccepted(await attempt(["localhost.crt"], { caCerts: [CA] }, "localhost"));
});

Deno.test("forged X.509 v1 certificate: the CA's name as issuer, signed by another key, is refused", async () => {
  // CN=localhost and no extensions, so the URL names localhost (an IP address needs an IP SAN).
  assertRefused(await attempt(["forged-v1.crt"], { caCerts: [CA] }, "localhost"), UNKNOWN_AUTHORITY);
  // Also when the server sends its rogue CA (same subject as the trusted one) along.
  assertRefused(
    await attempt(["forged-v1.crt", "rogue-ca.crt"], { caCerts: [CA] }, "localhost"),
    UNKNOWN_AUTHORITY,
  );
});

Deno.test("forged X.509 v3 certificate: the CA's name as issuer, signed by another key, is refused", async () => {
  assertRefused(await attempt(["forged-v3.crt"]), UNKNOWN_AUTHORITY);
  assertRefused(await attempt(["forged-v3.crt", "rogue-ca.crt"]), UNKNOWN_AUTHORITY);
});

Deno.test("a genuine X.509 v1 certificate of the configured CA is refused: only v3 leaves are accepted", async () => {
  assertRefused(
    await attempt(["genuine-v1.crt"], { caCerts: [CA] }, "localhost"),
    /server certificate is X\.509 v1; only v3 certificates are accepted/,
  );
});

Deno.test("a self-signed server certificate is refused", async () => {
  assertRefused(await attempt(["self-signed.crt"]), UNKNOWN_AUTHORITY);
});

Deno.test("a chain through an intermediate CA is accepted; without the intermediate it is not", async () => {
  assertAccepted(await attempt(["chained.crt", "intermediate.crt"]));
  assertRefused(await attempt(["chained.crt"]), UNKNOWN_AUTHORITY);
});

Deno.test("an intermediate CA certified by another key is refused", async () => {
  assertRefused(await attempt(["chained.crt", "forged-intermediate.crt"]), UNKNOWN_AUTHORITY);
  assertRefused(await attempt(["chained.crt", "forged-intermediate.crt", "rogue-ca.crt"]), UNKNOWN_AUTHORITY);
});

Deno.test("an X.509 v1 intermediate certified by another key is refused under a genuine v3 leaf", async () => {
  assertRefused(await attempt(["chained.crt", "forged-intermediate-v1.crt"]), UNKNOWN_AUTHORITY);
});

Deno.test("a genuine leaf certificate cannot act as a CA for another certificate", async () => {
  assertRefused(await attempt(["issued-by-leaf.crt", "localhost.crt"]), UNKNOWN_AUTHORITY);
});

Deno.test("an expired or not yet valid certificate is refused, saying so", async () => {
  assertRefused(await attempt(["expired.crt"]), /server certificate has expired/);
  assertRefused(await attempt(["not-yet-valid.crt"]), /server certificate is not valid yet/);
});

Deno.test("a certificate for another name, or another IP address, is refused", async () => {
  assertRefused(
    await attempt(["kube-internal.crt"]),
    /server certificate is not valid for the name "127\.0\.0\.1"/,
  );
  assertRefused(
    await attempt(["kube-internal.crt"], { caCerts: [CA] }, "localhost"),
    /not valid for the name "localhost"/,
  );
  assertRefused(
    await attempt(["other-ip.crt"]),
    /server certificate is not valid for the name "127\.0\.0\.1"/,
  );
});

Deno.test("a name only in the subject CN (no subjectAltName) is not accepted, as in Go and rustls", async () => {
  assertRefused(
    await attempt(["cn-only.crt"], { caCerts: [CA] }, "localhost"),
    /not valid for the name "localhost"/,
  );
});

Deno.test("a certificate whose extended key usage excludes server authentication is refused", async () => {
  assertRefused(await attempt(["client-only.crt"]), /not for server authentication/);
});

Deno.test("tls-server-name: a forged certificate for that name is refused", async () => {
  assertRefused(
    await attempt(["forged-v1-kube-internal.crt"], { caCerts: [CA], serverName: "kube.internal" }),
    UNKNOWN_AUTHORITY,
  );
});

Deno.test("tls-server-name: the certificate is verified against that name, not the URL's host", async () => {
  assertAccepted(await attempt(["kube-internal.crt"], { caCerts: [CA], serverName: "kube.internal" }));
  assertRefused(
    await attempt(["kube-internal.crt"], { caCerts: [CA], serverName: "wrong.internal" }),
    /not valid for the name "wrong\.internal"/,
  );
  assertRefused(
    await attempt(["localhost.crt"], { caCerts: [CA], serverName: "10.0.0.1" }, "localhost"),
    /not valid for the name "10\.0\.0\.1"/,
  );
});

Deno.test("a configured CA bundle: any of its certificates may be the anchor", async () => {
  const bundle = trustFixture("rogue-ca.crt") + CA;
  assertAccepted(await attempt(["localhost.crt"], { caCerts: [bundle] }));
  assertAccepted(
    await attempt(["chained.crt", "intermediate.crt"], { caCerts: [trustFixture("rogue-ca.crt"), CA] }),
  );
});

Deno.test("a server certificate configured as the CA itself is accepted (an exact match, as in Go)", async () => {
  assertAccepted(await attempt(["self-signed.crt"], { caCerts: [trustFixture("self-signed.crt")] }));
  assertRefused(await attempt(["self-signed.crt"], { caCerts: [CA] }), UNKNOWN_AUTHORITY);
});

Deno.test("insecureSkipVerify (insecure-skip-tls-verify) accepts even a forgery, with a warning", async () => {
  const warnings: string[] = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn(message: string) {
      warnings.push(message);
    },
    error() {},
    child: () => logger,
  };
  assertAccepted(await attempt(["forged-v1.crt"], { insecureSkipVerify: true }, "localhost", logger));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /verification is disabled/);
});
