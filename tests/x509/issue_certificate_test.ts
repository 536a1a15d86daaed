// A CA and the server certificates it issues, as the self-managed webhook certificates use them: checked
// by Go's crypto/x509 (what kube-apiserver runs when it calls a webhook), by rustls (Deno's TLS client) and
// by our own path check, for the Service names and 127.0.0.1.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { issueCertificate, type TlsMaterial } from "../../lib/x509/issue_certificate.ts";
import { parseTrustAnchors, verifyServerCertificate } from "../../lib/x509/server_certificate.ts";
import { parseCertificate, pemCertificates } from "../../lib/x509/certificate.ts";
import { goOracle } from "../_util/go_oracle.ts";

const DAY = 86_400_000;
const NOW = new Date("2027-03-01T00:00:00Z");
const HOSTS = ["hooks.kube-system.svc", "hooks.kube-system.svc.cluster.local", "127.0.0.1"];

const ca = (commonName = "kubeloop webhook CA", validityMs = 365 * DAY, now = NOW) =>
  issueCertificate({ commonName, ca: true, validityMs, now });
const serving = (issuer: TlsMaterial, validityMs = 90 * DAY, now = NOW) =>
  issueCertificate({ commonName: HOSTS[0]!, ca: false, hosts: HOSTS, validityMs, now, issuer });

interface Question {
  roots: string;
  leaf: string;
  name: string;
  timeMs: number;
}

/** Go's crypto/x509 verdict (Certificate.Verify as crypto/tls calls it) on each question. */
async function goAccepts(questions: readonly Question[]): Promise<boolean[]> {
  const child = new Deno.Command(await goOracle("x509_oracle"), {
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  const writer = child.stdin.getWriter();
  const lines = questions.map((q, i) => JSON.stringify({ id: String(i), intermediates: "", ...q }) + "\n");
  await writer.write(new TextEncoder().encode(lines.join("")));
  await writer.close();
  const { success, stdout, stderr } = await output;
  assert.ok(success, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout).trim().split("\n").map((l) =>
    (JSON.parse(l) as { ok: boolean }).ok
  );
}

Deno.test("a CA and its server certificate: Go's crypto/x509 accepts every host, and nothing else", async () => {
  const [a, b] = [await ca("CA a"), await ca("CA b")];
  const leaf = await serving(a);
  const at = NOW.getTime() + DAY;
  const questions: Question[] = [
    ...HOSTS.map((name) => ({ roots: a.cert, leaf: leaf.cert, name, timeMs: at })),
    // Both CAs in the bundle, as during a rotation's overlap: still trusted.
    { roots: b.cert + a.cert, leaf: leaf.cert, name: HOSTS[0]!, timeMs: at },
    { roots: b.cert, leaf: leaf.cert, name: HOSTS[0]!, timeMs: at }, // another CA
    { roots: a.cert, leaf: leaf.cert, name: "other.kube-system.svc", timeMs: at }, // a name not certified
    { roots: a.cert, leaf: leaf.cert, name: HOSTS[0]!, timeMs: NOW.getTime() + 91 * DAY }, // expired
    { roots: a.cert, leaf: leaf.cert, name: HOSTS[0]!, timeMs: NOW.getTime() - 2 * 3_600_000 }, // not yet
    { roots: leaf.cert, leaf: a.cert, name: HOSTS[0]!, timeMs: at }, // the CA is no server certificate
  ];
  assert.deepEqual(await goAccepts(questions), [true, true, true, true, false, false, false, false, false]);
  // Our own path check (the one our HTTP client applies) agrees on the accepted ones.
  for (const name of HOSTS) {
    await verifyServerCertificate(pemCertificates(leaf.cert), parseTrustAnchors([a.cert]), name, at);
  }
});

Deno.test("the certificates say what they are: CA with pathLen 0, server certificate with serverAuth and SANs", async () => {
  const a = await ca("kubeloop webhook CA 1");
  const leaf = await serving(a);
  const caX = new X509Certificate(a.cert);
  const leafX = new X509Certificate(leaf.cert);
  assert.equal(caX.ca, true);
  assert.equal(caX.subject, "CN=kubeloop webhook CA 1");
  assert.deepEqual(caX.keyUsage, ["KeyCertSign", "CRLSign"]);
  const parsed = parseCertificate(pemCertificates(a.cert)[0]!);
  assert.deepEqual([parsed.isCa, parsed.pathLength, parsed.extKeyUsage], [true, 0, undefined]);
  assert.ok(caX.verify(caX.publicKey), "the CA is self-signed");
  assert.equal(leafX.ca, false);
  assert.ok(leafX.checkIssued(caX), "issuer name and key identifier match the CA");
  assert.ok(leafX.verify(caX.publicKey), "the CA's key signed it");
  assert.deepEqual(leafX.keyUsage, ["DigitalSignature"]);
  assert.deepEqual(parseCertificate(pemCertificates(leaf.cert)[0]!).extKeyUsage, ["1.3.6.1.5.5.7.3.1"]);
  assert.equal(
    leafX.subjectAltName,
    "DNS:hooks.kube-system.svc, DNS:hooks.kube-system.svc.cluster.local, IP Address:127.0.0.1",
  );
  assert.equal(Date.parse(leafX.validFrom), NOW.getTime() - 3_600_000);
  assert.equal(Date.parse(leafX.validTo), NOW.getTime() + 90 * DAY);
  assert.notEqual(leafX.serialNumber, caX.serialNumber);
});

Deno.test("a server certificate never outlives its CA: notAfter is the CA's when the CA expires sooner", async () => {
  const shortCa = await ca("short CA", 30 * DAY);
  const leaf = await serving(shortCa, 90 * DAY);
  assert.equal(
    Date.parse(new X509Certificate(leaf.cert).validTo),
    Date.parse(new X509Certificate(shortCa.cert).validTo),
  );
  await assert.rejects(
    () => serving(shortCa, 90 * DAY, new Date(NOW.getTime() + 31 * DAY)),
    (e: Error) => e instanceof RangeError && /expired/.test(e.message),
  );
});

Deno.test("rustls serves the chain to a client that trusts only the CA, and refuses one that trusts another", async () => {
  const [a, b] = [
    await ca("rustls CA a", 365 * DAY, new Date()),
    await ca("rustls CA b", 365 * DAY, new Date()),
  ];
  const leaf = await serving(a, 90 * DAY, new Date());
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: leaf.cert, key: leaf.key, onListen: () => {} },
    () => new Response("ok"),
  );
  try {
    const trusting = Deno.createHttpClient({ caCerts: [a.cert] });
    const stranger = Deno.createHttpClient({ caCerts: [b.cert] });
    try {
      const res = await fetch(`https://127.0.0.1:${server.addr.port}/`, { client: trusting });
      assert.equal(await res.text(), "ok");
      await assert.rejects(fetch(`https://127.0.0.1:${server.addr.port}/`, { client: stranger }));
    } finally {
      trusting.close();
      stranger.close();
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("an issuer that cannot sign is refused, and no error quotes a key", async () => {
  const a = await ca("CA a");
  const b = await ca("CA b");
  const leaf = await serving(a);
  const cases: [TlsMaterial, RegExp][] = [
    [{ cert: a.cert, key: b.key }, /does not belong to its certificate/],
    [leaf, /not a CA/],
    [{ cert: "", key: a.key }, /no PEM certificate/],
  ];
  for (const [issuer, message] of cases) {
    const error = await serving(issuer).then(() => undefined, (e: unknown) => e as Error);
    assert.ok(error instanceof TypeError, String(error));
    assert.match(error.message, message);
    for (const key of [a.key, b.key, leaf.key]) {
      const body = key.split("\n")[1]!;
      assert.ok(!error.message.includes(body) && !String(error.stack).includes(body), "no key in the error");
    }
  }
  await assert.rejects(
    () => issueCertificate({ commonName: "x", ca: false, validityMs: DAY, now: NOW }),
    TypeError,
  );
  await assert.rejects(() => serving({ cert: a.cert, key: "not a key" }));
});
