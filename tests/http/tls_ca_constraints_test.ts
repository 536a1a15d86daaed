// Attacks with chains that the configured CA's own constraints forbid, over real sockets: a
// hostile server presents them, and the client, which trusts that CA, must refuse the connection
// before it writes a byte of its request (and its bearer token). Neither TLS stack underneath
// checks these on its own: Deno's rustls ignores a trust anchor's path length, extended key usage
// and extensions; the verdicts here must be our check's (lib/x509/path_validation.ts).
import assert from "node:assert/strict";
import { HttpClient } from "../../lib/http/mod.ts";
import { pemChainServer } from "./_chain_server.ts";
import { certificate, certificatePem, type CertificateSpec, type Key, p256Key } from "../x509/_builder.ts";

type Changes = Partial<Omit<CertificateSpec, "key" | "issuer">>;

/** A root (the configured CA), an optional intermediate and a leaf for localhost / 127.0.0.1. */
async function pki(
  rootChanges: Changes,
  intChanges?: Changes,
): Promise<{ ca: string; chain: string; key: Key }> {
  const valid = { notBefore: new Date(Date.now() - 3_600_000), notAfter: new Date(Date.now() + 86_400_000) };
  const [rootKey, intKey, leafKey] = [await p256Key(), await p256Key(), await p256Key()];
  const root = { subject: "kubeloop hostile test root", key: rootKey };
  const int = { subject: "kubeloop hostile test intermediate", key: intKey };
  const ca = { ...valid, ca: true, keyUsage: ["keyCertSign", "cRLSign"] } as const;
  const rootDer = await certificate({ ...ca, ...rootChanges, subject: root.subject, key: rootKey });
  const intDer = intChanges && await certificate({ ...ca, ...intChanges, ...int, issuer: root });
  const leaf = await certificate({
    ...valid,
    subject: "localhost",
    key: leafKey,
    issuer: intDer ? int : root,
    ca: false,
    keyUsage: ["digitalSignature"],
    eku: ["serverAuth"],
    sans: ["dns:localhost", "ip:127.0.0.1"],
  });
  const chain = certificatePem(leaf) + (intDer ? certificatePem(intDer) : "");
  return { ca: certificatePem(rootDer), chain, key: leafKey };
}

/** Serves the chain, sends one GET with a bearer token; what happened, and how many requests arrived. */
async function attempt(p: { ca: string; chain: string; key: Key }) {
  await using server = await pemChainServer(p.chain, p.key.pkcs8Pem);
  await using client = new HttpClient({ tls: { caCerts: [p.ca] } });
  const url = new URL(`https://127.0.0.1:${server.port}/`);
  try {
    const response = await client.request({
      method: "GET",
      url,
      headers: { Authorization: "Bearer s3cret" },
    });
    assert.equal(await response.text(), "ok");
    return { ok: true, requests: server.requests };
  } catch (err) {
    const e = err as Error;
    return { ok: false, name: e.name, message: e.message, requests: server.requests };
  }
}

async function assertRefused(p: Promise<{ ca: string; chain: string; key: Key }>, reason: RegExp) {
  const outcome = await attempt(await p);
  assert.equal(outcome.ok, false, "the connection was accepted");
  assert.equal(outcome.name, "TlsError", outcome.message);
  assert.match(outcome.message ?? "", reason);
  assert.equal(outcome.requests, 0, "a request (with its bearer token) reached the server");
}

Deno.test("a chain within the configured CA's constraints is accepted (baseline for the attacks below)", async () => {
  const constrained = await pki({
    pathLen: 1,
    eku: ["serverAuth"],
    nameConstraints: { permitted: ["dns:localhost", "ip:127.0.0.0/8"] },
    extensions: [{ oid: "1.3.6.1.4.1.99999.1", critical: false, value: Uint8Array.of(5, 0) }],
  }, { pathLen: 0, eku: ["serverAuth", "clientAuth"] });
  assert.deepEqual(await attempt(constrained), { ok: true, requests: 1 });
});

Deno.test("the configured CA's path length 0 forbids an intermediate: refused before the token is sent", async () => {
  await assertRefused(
    pki({ pathLen: 0 }, {}),
    /certificate signed by unknown authority \(the trusted CA certificate exceeds its path length\)/,
  );
});

Deno.test("a configured CA with an unknown critical extension issues nothing that is trusted", async () => {
  await assertRefused(
    pki({ extensions: [{ oid: "1.3.6.1.4.1.99999.1", critical: true, value: Uint8Array.of(5, 0) }] }),
    /\(the trusted CA certificate has an unsupported critical extension 1\.3\.6\.1\.4\.1\.99999\.1\)/,
  );
});

Deno.test("a configured CA for client authentication only cannot vouch for a server", async () => {
  await assertRefused(
    pki({ eku: ["clientAuth"] }),
    /certificate chain refused: the trusted CA limits its extended key usage to purposes other than server/,
  );
  await assertRefused(
    pki({}, { eku: ["clientAuth"] }),
    /certificate chain refused: intermediate certificate 1 limits its extended key usage/,
  );
});

Deno.test("name constraints of the configured CA and of intermediates, critical or not, are ours to check", async () => {
  // Deno's rustls checks a trust anchor's name constraints too, and node:tls refuses as well: the
  // refusal must still say it was our check's.
  for (const critical of [true, false]) {
    await assertRefused(
      pki({ nameConstraints: { permitted: ["dns:example.com"], critical } }),
      /certificate chain refused: DNS name "localhost" is not permitted under the name constraints of the trusted CA/,
    );
    await assertRefused(
      pki({}, { nameConstraints: { excluded: ["ip:127.0.0.0/8"], critical } }),
      /certificate chain refused: IP address 127\.0\.0\.1 is excluded under the name constraints of intermediate/,
    );
  }
});
