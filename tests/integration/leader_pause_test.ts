/**
 * Fencing after a pause, with two real processes (tests/integration/_manager_main.ts) on the real API
 * server, default timings (lease 15 s, renew deadline 10 s, retry 2 s): the leader is frozen with SIGSTOP
 * while a reconcile of its is in flight and more work arrives; the standby takes over; on SIGCONT the old
 * leader has every reason to write (an overdue reconcile about to write, fresh watch events) and must not.
 * The proof comes from the server: every reconcile write carries the writer's identity as its field manager,
 * so managedFields show who wrote each object. (The objects are created with data: the API server does not
 * start tracking managedFields on updates of an object created without any field.)
 */
import assert from "node:assert/strict";
import { createNamespace, eventually, kubectl, kubectlOk } from "../_util/testenv.ts";
import { leaseSpec, reportTiming, waitUntilLeading } from "./_lease.ts";
import { reconcileLine, startManagerProcess, waitForOk } from "./_process.ts";

const LEASE = "integration-pause";
/** Longest takeover: the lease duration after the standby last saw a renewal, plus two jittered retries. */
const TAKEOVER_BOUND_MS = 15_000 + 2 * 2_000 * (1 + 1.2) + 5_000;

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  time?: string;
}

/** The field managers that wrote each ConfigMap of the namespace, by name. */
async function writers(namespace: string): Promise<Map<string, ManagedFieldsEntry[]>> {
  const r = await kubectl(["get", "configmaps", "-n", namespace, "--show-managed-fields", "-o", "json"]);
  assert.equal(r.code, 0, r.stderr);
  const list = JSON.parse(r.stdout) as {
    items: { metadata: { name: string; managedFields?: ManagedFieldsEntry[] } }[];
  };
  return new Map(list.items.map((cm) => [cm.metadata.name, cm.metadata.managedFields ?? []]));
}

function writtenBy(entries: ManagedFieldsEntry[] | undefined, manager: string): boolean {
  return (entries ?? []).some((e) => e.manager === manager);
}

Deno.test("a leader paused past its lease makes no write after SIGCONT, and exits 1; the standby took over", async () => {
  await using ns = await createNamespace("leader-pause");
  const options = { namespace: ns.name, leaseName: LEASE, markWrites: true };
  await using a = await startManagerProcess({ ...options, identity: "candidate-a" });
  await waitUntilLeading(a, LEASE, 45_000);
  await using b = await startManagerProcess({ ...options, identity: "candidate-b" });
  await waitForOk(`${b.healthUrl}/readyz`);

  // Positive control: while leading, A's writes do show up in managedFields under its identity.
  await kubectlOk(["create", "configmap", "before", "-n", ns.name, "--from-literal=created=yes"]);
  await eventually(
    async () => writtenBy((await writers(ns.name)).get("before"), "candidate-a") || undefined,
    {
      message: () => `A never marked "before"; output:\n${a.output().slice(-4000)}`,
    },
  );

  // A reconcile of A's in flight across the pause: it sleeps 4 s (ignoring its signal), then writes.
  await kubectlOk(["create", "configmap", "slow", "-n", ns.name, "--from-literal=sleepMs=4000"]);
  await a.waitForLine(reconcileLine("Reconcile started", `${ns.name}/slow`));
  a.kill("SIGSTOP");
  const stoppedAt = Date.now();
  // Work that arrives while A is frozen; its watch delivers these as soon as it runs again.
  const fresh = ["paused-1", "paused-2", "paused-3"];
  for (const name of fresh) {
    await kubectlOk(["create", "configmap", name, "-n", ns.name, "--from-literal=created=yes"]);
  }

  await eventually(
    async () => (await leaseSpec(ns.name, LEASE))?.holderIdentity === "candidate-b" || undefined,
    {
      timeoutMs: TAKEOVER_BOUND_MS,
      intervalMs: 200,
      message: () => `the standby did not take over; output:\n${b.output().slice(-4000)}`,
    },
  );
  reportTiming(`takeover ${Date.now() - stoppedAt} ms after SIGSTOP`);
  await waitUntilLeading(b, LEASE, 10_000);
  // The new leader reconciles everything, including the objects A has pending work for.
  await eventually(async () => {
    const w = await writers(ns.name);
    return ["slow", ...fresh].every((name) => writtenBy(w.get(name), "candidate-b")) || undefined;
  }, { timeoutMs: 20_000, message: `B did not mark everything; output:\n${b.output().slice(-4000)}` });

  const continuedAt = Date.now();
  a.kill("SIGCONT");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const code = await Promise.race([
    a.exited,
    new Promise<"timeout">((resolve) => timer = setTimeout(() => resolve("timeout"), 20_000)),
  ]);
  clearTimeout(timer);
  reportTiming(`old leader exited ${Date.now() - continuedAt} ms after SIGCONT`);
  assert.equal(code, 1, `the old leader must exit 1; output:\n${a.output().slice(-6000)}`);
  assert.ok(
    a.lines().some((l) => String(l.msg).startsWith("Lost leadership")),
    `no "Lost leadership" line; output:\n${a.output().slice(-4000)}`,
  );

  // The server's record: A wrote nothing after it was frozen, neither the overdue reconcile's write nor
  // anything for the events it found waiting.
  const after = await writers(ns.name);
  for (const name of ["slow", ...fresh]) {
    assert.equal(
      writtenBy(after.get(name), "candidate-a"),
      false,
      `the old leader wrote ${name} after its renew deadline: ${JSON.stringify(after.get(name))}\n` +
        a.output().slice(-6000),
    );
  }
  assert.ok(writtenBy(after.get("before"), "candidate-a"), "A's pre-pause write is still recorded");
  // And it did try: the overdue reconcile ran to its write, which was refused rather than skipped.
  assert.ok(
    a.lines().some((l) => l.msg === "Mark refused" && l["key"] === `${ns.name}/slow`),
    `no refused write of "slow"; output:\n${a.output().slice(-4000)}`,
  );
});
