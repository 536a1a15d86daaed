/**
 * Sharding on an API server without sharded list and watch (v1.37 with the gate off; v1.34, which has no
 * such gate, when KUBELOOP_K8S_VERSION=1.34): the replicas detect that the selector is ignored, hash on the
 * client, and still split the work exactly; a replica that requires server-side filtering is refused.
 */
import assert from "node:assert/strict";
import { ShardHarness } from "./_shard_harness.ts";

const V134 = Deno.env.get("KUBELOOP_K8S_VERSION") === "1.34";
const ARGS = ["--shards=8", "--shard-lease-duration=6"];

Deno.test({
  name: "without the server's shard selector, replicas hash on the client and still split the work exactly",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await using h = await ShardHarness.start({
    audit: false,
    testenvArgs: V134 ? [] : ["-apiserver-arg=--feature-gates=ShardedListAndWatch=false"],
  });
  const replicas = [await h.startReplica(ARGS), await h.startReplica(ARGS)];
  for (const r of replicas) await h.joined(r);
  for (const r of replicas) {
    const line = r.lines().find((l) => l.msg === "Shard selector support");
    assert.equal(line?.support, "client", r.output().slice(-2000));
  }
  await h.createFoos("foo", 200);
  await h.converge(180_000);
  const keys = replicas.map((r) =>
    new Set(r.lines().filter((l) => l.msg === "Reconcile started").map((l) => String(l.key)))
  );
  assert.equal(new Set(keys.flatMap((k) => [...k])).size, 200, "every Foo reconciled");
  assert.equal(keys[0]!.size + keys[1]!.size, 200, "by exactly one replica each");
  assert.ok(keys.every((k) => k.size > 0));

  const strict = await h.startReplica([...ARGS, "--shard-selector=server"]);
  assert.equal(await strict.exited, 2);
  assert.match(strict.output(), /The API server ignores shard selectors/);
});
