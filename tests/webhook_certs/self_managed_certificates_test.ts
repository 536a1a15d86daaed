// selfManagedCertificates on FakeApi: replicas starting together agree on one Secret, and a certificate
// written to the Secret reaches every replica through its watch, without waiting for a check period.
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/testing/fake_clock.ts";
import { MemoryLogger } from "../../lib/testing/memory_logger.ts";
import { LeaseFence } from "../../lib/leader/lease_fence.ts";
import { SECRETS } from "../../lib/resources/refs.ts";
import type { Secret } from "../../lib/resources/core_v1.ts";
import type { FakeApi } from "../../lib/testing/fake_api.ts";
import {
  type SelfManagedCertificates,
  selfManagedCertificates,
} from "../../lib/webhook_certs/self_managed_certificates.ts";
import { decodeSecret, encodeSecret } from "../../lib/webhook_certs/secret_format.ts";
import type { StoredRotation } from "../../lib/webhook_certs/stored_rotation.ts";
import { issueCertificate } from "../../lib/x509/issue_certificate.ts";
import { parseCertificate, pemCertificates } from "../../lib/x509/certificate.ts";
import { assertTrusted, fakeCluster, HOSTS, NAMESPACE, SECRET, TARGETS } from "./_fake_cluster.ts";

function start(
  api: FakeApi,
  clock: FakeClock,
  signal: AbortSignal,
  leading: boolean,
  logger = new MemoryLogger(),
) {
  const fence = new LeaseFence({ clock });
  if (leading) fence.grant("lease", Number.POSITIVE_INFINITY);
  return selfManagedCertificates({
    client: api,
    namespace: NAMESPACE,
    secretName: SECRET,
    hosts: HOSTS,
    targets: TARGETS,
    fence,
    signal,
    clock,
    logger,
  });
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), `timed out waiting until ${what}`);
}

Deno.test("replicas agree on one Secret; a new certificate in it reaches all of them through the watch", async () => {
  const clock = new FakeClock();
  const api = fakeCluster(clock);
  const stop = new AbortController();
  const replicas: SelfManagedCertificates[] = await Promise.all(
    [true, false, false].map((leading) => start(api, clock, stop.signal, leading)),
  );
  assert.equal(api.objects(SECRETS, NAMESPACE).length, 1);
  const first = replicas[0]!.current().cert;
  assert.ok(replicas.every((r) => r.current().cert === first));
  await eventually(() => api.requests.some((r) => r.verb === "patch"), "the leader published the CA");

  // What a leader's renewal writes: a new serving certificate from the same CA. The clock does not move,
  // so only the watch can bring it.
  const secret = api.object<Secret>(SECRETS, SECRET, NAMESPACE)!;
  const view = await decodeSecret(secret);
  assert.equal(view.kind, "held");
  const stored = (view as { stored: StoredRotation }).stored;
  const material = await issueCertificate({
    commonName: HOSTS[0]!,
    ca: false,
    hosts: HOSTS,
    validityMs: 30 * 86_400_000,
    now: new Date(clock.now()),
    issuer: stored.signer,
  });
  const parsed = parseCertificate(pemCertificates(material.cert)[0]!);
  const serving = {
    ...material,
    notBefore: parsed.notBefore,
    notAfter: parsed.notAfter,
    hosts: HOSTS,
    issuer: stored.signer.cert,
  };
  const received: string[][] = replicas.map(() => []);
  replicas.forEach((r, i) => r.subscribe((m) => received[i]!.push(m.cert)));
  await api.replace(SECRETS, encodeSecret({ ...stored, serving }, { ...secret.metadata }));
  await eventually(() => replicas.every((r) => r.current().cert === material.cert), "every replica switched");
  assert.deepEqual(received, replicas.map(() => [material.cert]), "each listener told once");
  for (const r of replicas) await assertTrusted(api, r.current(), clock.now(), "after the switch");
  stop.abort();
  await Promise.all(replicas.map((r) => r.finished));
});

Deno.test("with a Secret that is not ours, no certificate is served and nothing is written; abort rejects", async () => {
  const clock = new FakeClock();
  const api = fakeCluster(clock);
  api.seed<Secret>(SECRETS, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: SECRET, namespace: NAMESPACE },
    type: "Opaque",
    data: { password: btoa("hunter2") },
  });
  const logger = new MemoryLogger();
  const stop = new AbortController();
  const starting = start(api, clock, stop.signal, true, logger);
  await eventually(() => logger.lines.some((l) => l.level === "error"), "the error is logged");
  assert.match(logger.lines.find((l) => l.level === "error")!.msg, /not a kubeloop certificate Secret/);
  stop.abort(new Error("stopped"));
  await assert.rejects(starting, /stopped/);
  assert.ok(!api.requests.some((r) => r.verb !== "get" && r.verb !== "list" && r.verb !== "watch"));
  assert.equal(atob(api.object<Secret>(SECRETS, SECRET, NAMESPACE)!.data!.password!), "hunter2");
  assert.ok(!JSON.stringify(logger.lines).includes("hunter2"));
});

Deno.test("a host that is no DNS name or IP address, or an unsafe policy, is refused before anything starts", async () => {
  const clock = new FakeClock();
  const api = fakeCluster(clock);
  const signal = AbortSignal.abort();
  const base = { client: api, namespace: NAMESPACE, secretName: SECRET, targets: TARGETS, signal, clock };
  await assert.rejects(() => selfManagedCertificates({ ...base, hosts: ["bad host"] }), TypeError);
  await assert.rejects(
    () =>
      selfManagedCertificates({
        ...base,
        hosts: HOSTS,
        policy: { checkPeriodMs: 60_000, overlapMs: 30_000 },
      }),
    /overlapMs \(30000\) must be at least checkPeriodMs \+ propagationMs/,
  );
  assert.deepEqual(api.requests, []);
});
