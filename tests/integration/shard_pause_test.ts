/**
 * The shard write fence against a pause, with two real processes (tests/integration/_manager_main.ts) in
 * one shard group of a single range (lease 6 s, renew deadline 4 s): the holder is frozen with SIGSTOP
 * while a reconcile of its is in flight — one that ignores its abort signal and then writes — and more
 * work arrives; the other process claims the range when the lease expires. On SIGCONT the frozen process
 * has every reason to write and only the fence can stop it. The proof is the server's: each reconcile write
 * names its writer as field manager, so managedFields show who wrote what.
 */
import assert from "node:assert/strict";
import { createNamespace, eventually, kubectl, kubectlOk } from "../_util/testenv.ts";
import { reconcileLine, startManagerProcess } from "./_process.ts";

interface ManagedFieldsEntry {
  manager?: string;
}

async function writers(namespace: string): Promise<Map<string, ManagedFieldsEntry[]>> {
  const r = await kubectl(["get", "configmaps", "-n", namespace, "--show-managed-fields", "-o", "json"]);
  assert.equal(r.code, 0, r.stderr);
  const list = JSON.parse(r.stdout) as {
    items: { metadata: { name: string; managedFields?: ManagedFieldsEntry[] } }[];
  };
  return new Map(list.items.map((cm) => [cm.metadata.name, cm.metadata.managedFields ?? []]));
}

const writtenBy = (entries: ManagedFieldsEntry[] | undefined, manager: string) =>
  (entries ?? []).some((e) => e.manager === manager);

Deno.test("a shard holder paused past its lease writes nothing after SIGCONT, even from a reconcile that ignores its signal", async () => {
  await using ns = await createNamespace("shard-pause");
  const options = {
    namespace: ns.name,
    markWrites: true,
    markIgnoresSignal: true,
    shard: { group: "pause", ranges: 1, leaseMs: 6_000 },
  };
  await using a = await startManagerProcess({ ...options, identity: "shard-a" });
  await a.waitForLine((l) => l.msg === "Range active", 30_000);
  await using b = await startManagerProcess({ ...options, identity: "shard-b" });
  await b.waitForLine((l) => l.msg === "Joined the shard group", 30_000);

  // Positive control: while holding the range, A's writes land under its identity.
  await kubectlOk(["create", "configmap", "before", "-n", ns.name, "--from-literal=created=yes"]);
  await eventually(async () => writtenBy((await writers(ns.name)).get("before"), "shard-a") || undefined, {
    message: () => `A never marked "before"; output:\n${a.output().slice(-4000)}`,
  });

  // A reconcile in flight across the pause: it sleeps 3 s (ignoring its signal), then writes.
  await kubectlOk(["create", "configmap", "slow", "-n", ns.name, "--from-literal=sleepMs=3000"]);
  await a.waitForLine(reconcileLine("Reconcile started", `${ns.name}/slow`));
  a.kill("SIGSTOP");
  const fresh = ["paused-1", "paused-2"];
  for (const name of fresh) {
    await kubectlOk(["create", "configmap", name, "-n", ns.name, "--from-literal=created=yes"]);
  }
  // B claims the range once A's claim sat unchanged for the lease duration, and reconciles everything.
  await b.waitForLine((l) => l.msg === "Range active", 30_000);
  await eventually(async () => {
    const w = await writers(ns.name);
    return ["slow", ...fresh].every((name) => writtenBy(w.get(name), "shard-b")) || undefined;
  }, { timeoutMs: 30_000, message: () => `B did not mark everything; output:\n${b.output().slice(-4000)}` });

  a.kill("SIGCONT");
  // A's overdue reconcile runs to its write, which the fence refuses; A gives the range up and stays a member.
  await a.waitForLine((l) => l.msg === "Mark refused" && l["key"] === `${ns.name}/slow`, 20_000);
  await a.waitForLine((l) => l.msg === "Range given up" && l.how === "idle", 20_000);
  const refusal = a.lines().find((l) => l.msg === "Mark refused" && l["key"] === `${ns.name}/slow`);
  assert.match(String(refusal?.error), /NotShardOwnerError: Write refused: range 0 of shard group "pause"/);
  // Give any write that slipped through time to land before reading the server's record.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const after = await writers(ns.name);
  for (const name of ["slow", ...fresh]) {
    assert.equal(
      writtenBy(after.get(name), "shard-a"),
      false,
      `the paused holder wrote ${name} after its deadline: ${JSON.stringify(after.get(name))}\n${
        a.output().slice(-6000)
      }`,
    );
  }
  assert.ok(writtenBy(after.get("before"), "shard-a"), "A's write before the pause is still recorded");
  const state = await Promise.race([
    a.exited.then(() => "exited"),
    new Promise((r) => setTimeout(() => r("running"), 100)),
  ]);
  assert.equal(state, "running", "a replica that lost its ranges stays in the group");
});
