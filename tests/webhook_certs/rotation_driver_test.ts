// The rotation driver against FakeApi on a fake clock: a year of three replicas in a few seconds, with a
// change of leader and restarts during a CA rotation; failed patches retried; non-leaders never writing.
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/testing/fake_clock.ts";
import { MemoryLogger } from "../../lib/testing/memory_logger.ts";
import { LeaseFence } from "../../lib/leader/lease_fence.ts";
import { SECRETS } from "../../lib/resources/refs.ts";
import { ApiError } from "../../lib/client/api_error.ts";
import type { FakeApi } from "../../lib/testing/fake_api.ts";
import { driveRotation } from "../../lib/webhook_certs/rotation_driver.ts";
import { rotationPolicy } from "../../lib/webhook_certs/rotation_policy.ts";
import { SecretCertificateSource } from "../../lib/webhook_certs/secret_source.ts";
import { PHASE_ANNOTATION } from "../../lib/webhook_certs/secret_format.ts";
import { pemCertificates } from "../../lib/x509/certificate.ts";
import {
  assertTrusted,
  caBundles,
  fakeCluster,
  HOSTS,
  NAMESPACE,
  recordingClient,
  SECRET,
  TARGETS,
} from "./_fake_cluster.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Checked once a day, so that a year is 365 steps; the overlap covers a check period and propagation.
const STEP = DAY;
const POLICY = rotationPolicy({ checkPeriodMs: DAY, propagationMs: 2 * HOUR, overlapMs: 2 * DAY });

interface Replica {
  readonly stop: AbortController;
  readonly source: SecretCertificateSource;
  readonly fence: LeaseFence;
  readonly calls: string[];
  readonly done: Promise<void>;
}

function startReplica(api: FakeApi, clock: FakeClock, logger: MemoryLogger, leading: boolean): Replica {
  const stop = new AbortController();
  const fence = new LeaseFence({ clock });
  if (leading) fence.grant("lease", Number.POSITIVE_INFINITY);
  const calls: string[] = [];
  const source = new SecretCertificateSource(logger);
  const done = driveRotation(
    {
      client: recordingClient(api, calls),
      namespace: NAMESPACE,
      secretName: SECRET,
      labels: { app: "hooks" },
      targets: TARGETS,
      config: { policy: POLICY, hosts: HOSTS },
      commonName: "hooks-ca",
      fence,
      source,
      clock,
      logger,
    },
    stop.signal,
    { wakeUp: () => {} },
  );
  return { stop, source, fence, calls, done };
}

async function stopAll(replicas: readonly Replica[]) {
  for (const r of replicas) r.stop.abort();
  await Promise.all(replicas.map((r) => r.done));
  await Promise.all(replicas.map((r) => r.source.settled()));
}

const phaseOf = (api: FakeApi) =>
  api.object(SECRETS, SECRET, NAMESPACE)?.metadata.annotations?.[PHASE_ANNOTATION];

Deno.test("a year of three replicas: every served certificate always chains to a CA in every caBundle", async () => {
  const clock = new FakeClock(Date.UTC(2027, 0, 1));
  const api = fakeCluster(clock);
  const logger = new MemoryLogger();
  const replicas = [true, false, false].map((leading) => startReplica(api, clock, logger, leading));
  const cas = new Set<string>();
  const servings = new Set<string>();
  const restarts: string[] = [];
  const start = clock.now();
  const end = start + 365 * DAY;
  while (clock.now() < end) {
    await clock.waitForTimers(replicas.length, 30_000);
    await Promise.all(replicas.map((r) => r.source.settled()));
    for (const [i, r] of replicas.entries()) {
      if (!r.source.hasCertificate) continue; // the first read has not come back yet
      await assertTrusted(
        api,
        r.source.current(),
        clock.now(),
        `replica ${i} at day ${(clock.now() - start) / DAY}`,
      );
      servings.add(r.source.current().cert);
    }
    for (const b of caBundles(api)) cas.add(b);
    // Mid-rotation: the leader restarts while the new CA is staged; leadership moves when it is switched,
    // and a follower restarts.
    const phase = phaseOf(api);
    if (phase === "staged" && !restarts.includes("staged")) {
      restarts.push("staged");
      await stopAll([replicas[0]!]);
      replicas[0] = startReplica(api, clock, logger, true);
    } else if (phase === "switched" && !restarts.includes("switched")) {
      restarts.push("switched");
      replicas[0]!.fence.revoke();
      replicas[1]!.fence.grant("lease", Number.POSITIVE_INFINITY);
      await stopAll([replicas[2]!]);
      replicas[2] = startReplica(api, clock, logger, false);
    }
    await clock.advance(STEP);
  }
  await stopAll(replicas);
  assert.deepEqual(restarts, ["staged", "switched"], "a CA rotation happened, with the restarts in it");
  assert.equal(phaseOf(api), "stable");
  const distinctCas = new Set([...cas].flatMap((b) => pemCertificates(b).map((der) => der.join())));
  assert.equal(distinctCas.size, 2, "the first CA and its successor");
  assert.ok(servings.size >= 5, `serving certificates renewed (${servings.size})`);
  assert.deepEqual(logger.lines.filter((l) => l.level === "error"), []);
  const writes = (r: Replica) => r.calls.filter((c) => /^(replace|patch) /.test(c));
  assert.deepEqual(writes(replicas[2]!), [], "a replica that never led never updated or patched anything");
  for (const line of logger.lines) {
    assert.ok(!JSON.stringify(line).includes("PRIVATE KEY"), "no key material in any log line");
  }
});

Deno.test("three replicas starting at once create one Secret, and all serve its certificate", async () => {
  const clock = new FakeClock();
  const api = fakeCluster(clock);
  const logger = new MemoryLogger();
  const replicas = [false, true, false].map((leading) => startReplica(api, clock, logger, leading));
  await clock.waitForTimers(3, 30_000);
  await Promise.all(replicas.map((r) => r.source.settled()));
  const creates = replicas.map((r) => r.calls.filter((c) => c === "create secrets").length);
  assert.deepEqual(creates.toSorted(), [1, 1, 1], "each tried");
  assert.equal(api.objects(SECRETS, NAMESPACE).length, 1);
  const served = replicas.map((r) => r.source.current().cert);
  assert.ok(served.every((c) => c === served[0]), "one chain for all");
  assert.equal(logger.lines.filter((l) => /Another replica created the Secret first/.test(l.msg)).length, 2);
  for (const r of replicas) await assertTrusted(api, r.source.current(), clock.now(), "after start");
  await stopAll(replicas);
});

Deno.test("a caBundle patch that fails is retried until it succeeds; a non-leader never patches", async () => {
  const clock = new FakeClock();
  const api = fakeCluster(clock);
  api.fail({
    verb: "patch",
    resource: "validatingwebhookconfigurations",
    times: 4,
    error: new ApiError({ code: 500, reason: "InternalError", message: "etcd timeout" }),
  });
  const logger = new MemoryLogger();
  const follower = startReplica(api, clock, logger, false);
  const leader = startReplica(api, clock, logger, true);
  await clock.waitForTimers(2, 30_000);
  assert.equal(caBundles(api)[0], "", "not yet: the first patch failed");
  for (let i = 0; i < 6; i++) {
    await clock.advance(20_000);
    await clock.waitForTimers(2, 30_000);
  }
  await leader.source.settled();
  await assertTrusted(api, leader.source.current(), clock.now(), "after the retries");
  const retries = logger.lines.filter((l) => /Writing the caBundles failed; retrying in/.test(l.msg));
  assert.deepEqual(retries.map((l) => Number(/in (\d+) ms/.exec(l.msg)![1])), [1_000, 2_000, 4_000, 8_000]);
  assert.ok(!follower.calls.some((c) => c.startsWith("patch")), "the follower never patched");
  await stopAll([leader, follower]);
});
