/**
 * Graceful shutdown against the real API server: a Manager in this process (sanitizers on, so nothing
 * may outlive `run`), and the test program `_manager_main.ts` as a real process receiving SIGTERM.
 */
import assert from "node:assert/strict";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { CONFIG_MAPS, type KubeObject } from "../../lib/resources/mod.ts";
import { Manager } from "../../lib/controller/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { createNamespace, eventually, kubectlOk } from "../_util/testenv.ts";
import { leaseSpec } from "./_lease.ts";
import { type LogLine, reconcileLine, startManagerProcess } from "./_process.ts";

/** Creates a ConfigMap whose reconcile in `_manager_main.ts` takes `sleepMs`. */
function createSlowConfigMap(namespace: string, name: string, sleepMs: number): Promise<string> {
  return kubectlOk(["create", "configmap", name, "-n", namespace, `--from-literal=sleepMs=${sleepMs}`]);
}

function indexOf(lines: LogLine[], match: (line: LogLine) => boolean): number {
  return lines.findIndex(match);
}

Deno.test("on abort a Manager lets the in-flight reconcile finish, releases its Lease and leaves nothing running", async () => {
  await using ns = await createNamespace("shutdown-inproc");
  await using client = await adminClient();
  const factory = new SharedInformerFactory(client);
  const manager = new Manager(factory, {
    metricsAddress: "0",
    healthAddress: "0",
    leaderElection: { client, leaseName: "shutdown", namespace: ns.name, identity: "in-process" },
  });
  const started = Promise.withResolvers<void>();
  let finishedAt = 0;
  let sawAbort = true;
  manager.controller<KubeObject>({
    name: "configmaps",
    for: CONFIG_MAPS,
    namespace: ns.name,
    reconcile: async (request, ctx) => {
      if (request.name !== "slow") return;
      started.resolve();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      sawAbort = ctx.signal.aborted;
      finishedAt = Date.now();
    },
  });
  const stop = new AbortController();
  const running = manager.run({ signal: stop.signal });
  await kubectlOk(["create", "configmap", "slow", "-n", ns.name]);
  await started.promise;
  stop.abort(new Error("test shutdown"));
  await running;
  const returnedAt = Date.now();
  const informersStopped = await Promise.race([
    factory.stopped().then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 0)),
  ]);

  assert.ok(finishedAt > 0 && finishedAt <= returnedAt, "run resolved only after the reconcile finished");
  assert.equal(sawAbort, false, "the reconcile was not cut short within the grace period");
  assert.ok(informersStopped, "the informers had stopped when run resolved");
  assert.equal((await leaseSpec(ns.name, "shutdown"))?.holderIdentity, "", "the Lease was released");
});

Deno.test("when in-flight reconciles outlast the grace period their signals abort and run still resolves", async () => {
  await using ns = await createNamespace("shutdown-grace");
  await using client = await adminClient();
  const manager = new Manager(new SharedInformerFactory(client), {
    metricsAddress: "0",
    healthAddress: "0",
    gracefulShutdownMs: 500,
  });
  const started = Promise.withResolvers<void>();
  let abortedAfterMs = -1;
  manager.controller<KubeObject>({
    name: "configmaps",
    for: CONFIG_MAPS,
    namespace: ns.name,
    reconcile: async (request, ctx) => {
      if (request.name !== "stuck") return;
      started.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      ctx.signal.addEventListener("abort", () => resolve(), { once: true });
      const since = Date.now();
      await promise;
      abortedAfterMs = Date.now() - since;
    },
  });
  const stop = new AbortController();
  const running = manager.run({ signal: stop.signal });
  await kubectlOk(["create", "configmap", "stuck", "-n", ns.name]);
  await started.promise;
  const abortedAt = Date.now();
  stop.abort();
  await running;
  const tookMs = Date.now() - abortedAt;

  assert.ok(
    abortedAfterMs >= 400,
    `the reconcile's signal aborted after ${abortedAfterMs} ms, before the grace`,
  );
  assert.ok(tookMs < 5_000, `shutdown took ${tookMs} ms`);
});

Deno.test("SIGTERM during a slow reconcile: the process finishes it, releases the Lease and exits 0", async () => {
  await using ns = await createNamespace("shutdown-term");
  await using proc = await startManagerProcess({
    namespace: ns.name,
    identity: "graceful",
    leaseName: "graceful",
  });
  await proc.waitForLine((l) => l.msg === "Became leader");
  await createSlowConfigMap(ns.name, "slow", 3_000);
  const key = `${ns.name}/slow`;
  await proc.waitForLine(reconcileLine("Reconcile started", key));

  const terminatedAt = Date.now();
  proc.kill("SIGTERM");
  assert.equal(await proc.exited, 0, proc.output().slice(-4000));
  const tookMs = Date.now() - terminatedAt;

  const lines = proc.lines();
  const finished = indexOf(lines, reconcileLine("Reconcile finished", key));
  const shuttingDown = indexOf(lines, (l) => l.msg === "Shutting down: waiting for in-flight reconciles");
  const stopped = indexOf(lines, (l) => l.msg === "Manager stopped");
  assert.ok(shuttingDown >= 0 && finished > shuttingDown, "the reconcile finished after shutdown began");
  assert.ok(stopped > finished, "the Manager stopped only after the reconcile finished");
  assert.equal(lines[finished]?.["aborted"], false);
  assert.ok(tookMs >= 1_000, `exited ${tookMs} ms after SIGTERM: it did not wait for the reconcile`);
  assert.equal((await leaseSpec(ns.name, "graceful"))?.holderIdentity, "");
});

Deno.test("a reconcile that ignores its aborted signal past the grace period returns before the Lease is released", async () => {
  await using ns = await createNamespace("shutdown-hard");
  await using proc = await startManagerProcess({
    namespace: ns.name,
    identity: "stubborn",
    leaseName: "stubborn",
    gracefulShutdownMs: 500,
  });
  await proc.waitForLine((l) => l.msg === "Became leader");
  await createSlowConfigMap(ns.name, "slow", 2_500);
  const key = `${ns.name}/slow`;
  await proc.waitForLine(reconcileLine("Reconcile started", key));

  proc.kill("SIGTERM");
  assert.equal(await proc.exited, 0, proc.output().slice(-4000));

  const lines = proc.lines();
  const hardStop = indexOf(
    lines,
    (l) => l.msg === "Shutdown grace period ended; aborting in-flight reconciles",
  );
  const finished = indexOf(lines, reconcileLine("Reconcile finished", key));
  const released = indexOf(lines, (l) => l.msg === "Released lease");
  assert.ok(hardStop >= 0, "the grace period ended while the reconcile ran");
  assert.ok(finished > hardStop, "the aborted reconcile was awaited");
  assert.equal(lines[finished]?.["aborted"], true);
  assert.ok(released > finished, "the Lease was released only after the reconcile returned");
  assert.equal((await leaseSpec(ns.name, "stubborn"))?.holderIdentity, "");
});

Deno.test("a second SIGTERM exits at once with code 1 without waiting for the in-flight reconcile", async () => {
  await using ns = await createNamespace("shutdown-twice");
  await using proc = await startManagerProcess({ namespace: ns.name, identity: "impatient" });
  await eventually(() => proc.lines().find((l) => l.msg === "Starting workers"));
  // The reconcile sleeps SLOW_MS and the grace period is 30 s: exiting well before either ends (half of
  // SLOW_MS: the rest is margin for a loaded machine) shows the second signal waited for neither.
  const SLOW_MS = 20_000;
  await createSlowConfigMap(ns.name, "slow", SLOW_MS);
  const key = `${ns.name}/slow`;
  await proc.waitForLine(reconcileLine("Reconcile started", key));

  proc.kill("SIGTERM");
  await proc.waitForLine((l) => l.msg === "Shutting down: waiting for in-flight reconciles");
  const secondAt = Date.now();
  proc.kill("SIGTERM");
  assert.equal(await proc.exited, 1, proc.output().slice(-4000));
  const tookMs = Date.now() - secondAt;

  assert.ok(tookMs < SLOW_MS / 2, `exited ${tookMs} ms after the second SIGTERM`);
  assert.equal(indexOf(proc.lines(), reconcileLine("Reconcile finished", key)), -1);
});
