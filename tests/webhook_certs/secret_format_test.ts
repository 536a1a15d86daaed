// The certificate Secret's format: every stored phase round-trips; a Secret that is not ours is left alone;
// a broken one is reported by field, never by value; the certificate source never goes back in time.
import assert from "node:assert/strict";
import { issueCertificate } from "../../lib/x509/issue_certificate.ts";
import { parseCertificate, pemCertificates } from "../../lib/x509/certificate.ts";
import {
  decodeSecret,
  encodeSecret,
  FORMAT_ANNOTATION,
  PHASE_ANNOTATION,
} from "../../lib/webhook_certs/secret_format.ts";
import type { KeyedCertificate, StoredRotation } from "../../lib/webhook_certs/stored_rotation.ts";
import { SecretCertificateSource } from "../../lib/webhook_certs/secret_source.ts";
import { MemoryLogger } from "../../lib/testing/memory_logger.ts";
import type { Secret } from "../../lib/resources/core_v1.ts";

const NOW = new Date("2027-05-01T00:00:00Z");
const HOSTS = ["hooks.ns.svc", "hooks.ns.svc.cluster.local", "127.0.0.1", "::1"];
/** As read back from a certificate (the driver compares hosts in this form). */
const HOSTS_READ = ["hooks.ns.svc", "hooks.ns.svc.cluster.local", "127.0.0.1", "0:0:0:0:0:0:0:1"];

async function ca(name: string): Promise<KeyedCertificate> {
  const m = await issueCertificate({ commonName: name, ca: true, validityMs: 365 * 86_400_000, now: NOW });
  const p = parseCertificate(pemCertificates(m.cert)[0]!);
  return { ...m, notBefore: p.notBefore, notAfter: p.notAfter };
}

async function serving(signer: KeyedCertificate) {
  const m = await issueCertificate({
    commonName: HOSTS[0]!,
    ca: false,
    hosts: HOSTS,
    validityMs: 90 * 86_400_000,
    now: NOW,
    issuer: signer,
  });
  const p = parseCertificate(pemCertificates(m.cert)[0]!);
  return { ...m, notBefore: p.notBefore, notAfter: p.notAfter, hosts: HOSTS_READ, issuer: signer.cert };
}

const meta = { name: "certs", namespace: "ns", resourceVersion: "12" };
const asRead = (s: Secret): Secret => ({ ...s, metadata: { ...s.metadata, resourceVersion: "12" } });

Deno.test("every stored phase survives the Secret, and the Secret is a kubernetes.io/tls one with ca.crt", async () => {
  const [a, b] = [await ca("a"), await ca("b")];
  const sa = await serving(a);
  const sb = await serving(b);
  const phases: StoredRotation[] = [
    { phase: "stable", signer: a, serving: sa },
    { phase: "staged", signer: a, next: b, serving: sa },
    { phase: "staged", signer: a, next: b, serving: sa, publishedAt: NOW.getTime() + 1_000 },
    { phase: "switched", signer: b, previous: a.cert, serving: sb, since: NOW.getTime() + 2_000 },
  ];
  for (const stored of phases) {
    const secret = encodeSecret(stored, meta);
    assert.equal(secret.type, "kubernetes.io/tls");
    assert.equal(secret.metadata.annotations?.[FORMAT_ANNOTATION], "v1");
    assert.equal(atob(secret.data!["tls.crt"]!), stored.serving!.cert);
    const expectedCa = stored.phase === "stable" ? a.cert : a.cert + b.cert;
    assert.equal(atob(secret.data!["ca.crt"]!), expectedCa, "ca.crt: what the caBundles hold");
    const view = await decodeSecret(asRead(secret));
    assert.deepEqual(view, { kind: "held", stored, resourceVersion: "12" }, stored.phase);
  }
});

Deno.test("a Secret that is not ours is foreign, never malformed: nobody replaces it", async () => {
  const stored: StoredRotation = { phase: "stable", signer: await ca("a") };
  const ours = encodeSecret(stored, meta);
  const cases: [Secret, RegExp][] = [
    [{ ...ours, metadata: { ...ours.metadata, annotations: {} } }, /no kubeloop.dev\/webhook-certificates/],
    [{ ...ours, metadata: { ...ours.metadata, annotations: { [FORMAT_ANNOTATION]: "v2" } } }, /format "v2"/],
    [{ ...ours, type: "Opaque" }, /type "Opaque"/],
  ];
  for (const [secret, reason] of cases) {
    const view = await decodeSecret(secret);
    assert.equal(view.kind, "foreign");
    assert.match((view as { reason: string }).reason, reason);
  }
  assert.deepEqual(await decodeSecret(undefined), { kind: "absent" });
});

Deno.test("a broken Secret is reported by field and never quotes a key; a broken serving certificate is only absent", async () => {
  const [a, b] = [await ca("a"), await ca("b")];
  const good = encodeSecret({ phase: "staged", signer: a, next: b, serving: await serving(a) }, meta);
  const edit = (data: Record<string, string>, annotations: Record<string, string> = {}): Secret => ({
    ...good,
    metadata: { ...good.metadata, annotations: { ...good.metadata.annotations, ...annotations } },
    data: { ...good.data, ...data },
  });
  const cases: [Secret, RegExp][] = [
    [
      edit({ "signer.key": good.data!["next.key"]! }),
      /data\["signer.key"\] is not the private key of data\["signer.crt"\]/,
    ],
    [edit({ "signer.crt": good.data!["tls.crt"]! }), /data\["signer.crt"\] is not a CA certificate/],
    [edit({ "next.crt": "!!!" }), /data\["next.crt"\] is not base64/],
    [edit({ "signer.crt": btoa(a.cert + b.cert) }), /exactly one PEM certificate/],
    [edit({}, { [PHASE_ANNOTATION]: "rotating" }), /not stable, staged or switched/],
  ];
  for (const [secret, reason] of cases) {
    const view = await decodeSecret(secret);
    assert.equal(view.kind, "malformed", String(reason));
    const text = (view as { reason: string }).reason;
    assert.match(text, reason);
    for (const key of [a.key, b.key]) assert.ok(!text.includes(key.split("\n")[1]!), "no key material");
  }
  // The serving certificate's key swapped: the CA part is fine, the serving certificate is reissued.
  const view = await decodeSecret(edit({ "tls.key": good.data!["signer.key"]! }));
  assert.equal(view.kind, "held");
  assert.equal((view as { stored: StoredRotation }).stored.serving, undefined);
  // Signed by a CA the Secret does not hold: kept, with no issuer, so the leader reissues it.
  const stranger = await serving(await ca("stranger"));
  const foreignLeaf = await decodeSecret(
    edit({ "tls.crt": btoa(stranger.cert), "tls.key": btoa(stranger.key) }),
  );
  assert.equal((foreignLeaf as { stored: StoredRotation }).stored.serving?.issuer, "");
});

Deno.test("the source never goes back: a read that raced a watch event is dropped, events apply in order", async () => {
  const a = await ca("a");
  const [s1, s2, s3] = [await serving(a), await serving(a), await serving(a)];
  const secret = (s: typeof s1) => asRead(encodeSecret({ phase: "stable", signer: a, serving: s }, meta));
  const source = new SecretCertificateSource(new MemoryLogger());
  const seen: string[] = [];
  source.subscribe((m) => seen.push(m.cert));
  source.offerEvent(secret(s1));
  await source.ready(AbortSignal.timeout(5_000));
  const token = source.readToken(); // a GET is sent, and answers with s2…
  source.offerEvent(secret(s3)); // …but the watch delivered s3 meanwhile
  source.offerRead(secret(s2), token);
  await source.settled();
  assert.equal(source.current().cert, s3.cert);
  assert.deepEqual(seen, [s3.cert]);
  // With no event in between, a read applies (a broken watch is what periodic reads are for).
  source.offerRead(secret(s2), source.readToken());
  await source.settled();
  assert.equal(source.current().cert, s2.cert);
  // A Secret without a usable serving certificate changes nothing.
  source.offerEvent(asRead(encodeSecret({ phase: "stable", signer: a }, meta)));
  source.offerEvent(undefined);
  await source.settled();
  assert.equal(source.current().cert, s2.cert);
});
