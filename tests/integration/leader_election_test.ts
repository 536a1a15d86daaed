/**
 * Leader election between two real processes (tests/integration/_manager_main.ts, a Manager with one
 * ConfigMap controller) competing for one Lease on the real API server, with the default timings:
 * lease 15 s, renew deadline 10 s, retry 2 s with jitter factor 1.2. Every time bound below is derived
 * from those periods plus MARGIN_MS.
 */
import assert from "node:assert/strict";
import { createNamespace, kubectlOk, type TestNamespace } from "../_util/testenv.ts";
import { leaseSpec, reportTiming, waitUntilLeading } from "./_lease.ts";
import { sampleSum, scrape } from "./_metrics.ts";
import {
  type LogLine,
  type ManagerProcess,
  reconcileLine,
  startManagerProcess,
  waitForOk,
} from "./_process.ts";

const LEASE = "integration-leader";
const LEASE_MS = 15_000;
/** The leader renews every retry period. */
const RETRY_MS = 2_000;
/** The longest jittered wait between two acquire attempts: retry period * (1 + jitter factor). */
const MAX_RETRY_MS = RETRY_MS * (1 + 1.2);
/**
 * Stated margin on top of the configured periods, for a Lease GET + PUT and a busy event loop in a
 * process on a loaded 2-core machine. Times are taken from the processes' own log lines (same machine
 * clock), so the polling of the test adds nothing.
 */
const MARGIN_MS = 2_000;

/** The time a log line was written (its `ts` field), in ms since the epoch. */
function loggedAt(line: LogLine): number {
  const at = Date.parse(String(line["ts"]));
  assert.ok(Number.isFinite(at), `log line without a time: ${JSON.stringify(line)}`);
  return at;
}

/** Starts `a`, waits until it leads, then starts `b` and waits until its caches synced. */
async function startPair(ns: TestNamespace): Promise<[ManagerProcess, ManagerProcess]> {
  const a = await startManagerProcess({ namespace: ns.name, identity: "candidate-a", leaseName: LEASE });
  try {
    // Generous: a fresh process on a loaded 2-core machine needs a while to start, sync and acquire.
    await waitUntilLeading(a, LEASE, 45_000);
    const b = await startManagerProcess({ namespace: ns.name, identity: "candidate-b", leaseName: LEASE });
    try {
      await waitForOk(`${b.healthUrl}/readyz`);
      return [a, b];
    } catch (error) {
      await b[Symbol.asyncDispose]();
      throw error;
    }
  } catch (error) {
    await a[Symbol.asyncDispose]();
    throw error;
  }
}

function reconcileTotal(metrics: string): number | undefined {
  return sampleSum(metrics, "controller_runtime_reconcile_total", { controller: "configmaps" });
}

Deno.test("of two manager processes on one Lease exactly one reconciles, and SIGTERM hands over within one retry period of the release", async () => {
  await using ns = await createNamespace("leader-term");
  const [a, b] = await startPair(ns);
  await using _a = a;
  await using _b = b;

  await kubectlOk(["create", "configmap", "probe", "-n", ns.name]);
  await a.waitForLine(reconcileLine("Reconcile started", `${ns.name}/probe`));
  // Give the standby every chance to (wrongly) reconcile too.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  assert.equal((await leaseSpec(ns.name, LEASE))?.holderIdentity, "candidate-a");
  assert.deepEqual(b.lines().filter((l) => l.msg === "Reconcile started"), []);
  const standbyMetrics = await scrape(b.metricsUrl);
  assert.equal(reconcileTotal(standbyMetrics), 0, "the standby's controller never reconciled");
  assert.notEqual(sampleSum(standbyMetrics, "leader_election_master_status", { name: LEASE }), 1);
  assert.ok((reconcileTotal(await scrape(a.metricsUrl)) ?? 0) >= 1, "the leader reconciled");
  const transitionsBefore = (await leaseSpec(ns.name, LEASE))?.leaseTransitions ?? 0;

  const terminatedAt = Date.now();
  a.kill("SIGTERM");
  // Nothing is in flight, so the old leader releases at once; the standby notices at its next acquire
  // attempt, at most one jittered retry period later, instead of waiting out the lease duration.
  const release = await a.waitForLine(
    (l) => /^(Released lease|Cannot release lease)/.test(l.msg ?? ""),
    LEASE_MS,
  );
  assert.equal(release.msg, "Released lease", JSON.stringify(release));
  const released = loggedAt(release);
  const led = loggedAt(
    await b.waitForLine((l) => l.msg === "Became leader", MAX_RETRY_MS + MARGIN_MS + 5_000),
  );
  await waitUntilLeading(b, LEASE, 5_000);
  reportTiming(
    `SIGTERM: released after ${released - terminatedAt} ms, taken over ${led - released} ms later`,
  );
  assert.ok(
    led - released <= MAX_RETRY_MS + MARGIN_MS,
    `taken over ${led - released} ms after the release, bound ${MAX_RETRY_MS + MARGIN_MS} ms`,
  );
  assert.ok(led - terminatedAt < LEASE_MS, "the handover did not wait for the lease to expire");

  assert.equal(await a.exited, 0, a.output().slice(-4000));
  assert.ok(a.lines().some((l) => l.msg === "Released lease"), "the old leader released the Lease");
  const lease = await leaseSpec(ns.name, LEASE);
  assert.equal(lease?.holderIdentity, "candidate-b");
  assert.equal(lease?.leaseTransitions, transitionsBefore + 1);

  await kubectlOk(["create", "configmap", "after-handover", "-n", ns.name]);
  await b.waitForLine(reconcileLine("Reconcile started", `${ns.name}/after-handover`));
});

Deno.test("when the leader process is SIGKILLed the standby waits out the lease duration, then leads", async () => {
  await using ns = await createNamespace("leader-kill");
  const [a, b] = await startPair(ns);
  await using _a = a;
  await using _b = b;
  // Let the standby observe the Lease being renewed at least once.
  await new Promise((resolve) => setTimeout(resolve, MAX_RETRY_MS));
  assert.equal((await leaseSpec(ns.name, LEASE))?.holderIdentity, "candidate-a");

  const killedAt = Date.now();
  a.kill("SIGKILL");
  assert.equal(await a.exited, 137);
  // Expiry is judged on the standby's clock from when it saw the last renewal (at most one jittered
  // retry after it happened), and noticed at the next attempt (at most one more jittered retry).
  const bound = LEASE_MS + 2 * MAX_RETRY_MS + MARGIN_MS;
  const led = loggedAt(await b.waitForLine((l) => l.msg === "Became leader", bound + 5_000));
  await waitUntilLeading(b, LEASE, 5_000);
  const handoverMs = led - killedAt;
  reportTiming(`SIGKILL handover ${handoverMs} ms`);
  assert.ok(handoverMs < bound, `handover after SIGKILL took ${handoverMs} ms, bound ${bound} ms`);
  // The last renewal was at most one retry period (plus a request: 1 s) before the kill.
  assert.ok(
    handoverMs > LEASE_MS - RETRY_MS - 1_000,
    `took over after only ${handoverMs} ms: it did not wait`,
  );
  assert.equal((await leaseSpec(ns.name, LEASE))?.holderIdentity, "candidate-b");

  await kubectlOk(["create", "configmap", "after-kill", "-n", ns.name]);
  await b.waitForLine(reconcileLine("Reconcile started", `${ns.name}/after-kill`));
});
