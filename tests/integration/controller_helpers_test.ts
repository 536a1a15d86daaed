// The controller helpers against the real kube-apiserver (and kube-controller-manager's garbage
// collector): the optimistic-concurrency behaviour FakeApi imitates is the server's.
import assert from "node:assert/strict";
import { ApiError } from "../../lib/client/mod.ts";
import {
  addFinalizer,
  apply,
  controllerReference,
  createOrPatch,
  isTerminating,
  removeFinalizer,
} from "../../lib/controller/mod.ts";
import { CONFIG_MAPS, type ConfigMap } from "../../lib/resources/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { createNamespace, eventually } from "../_util/testenv.ts";

Deno.test("finalizers: a stale add re-reads after the server's 409 and keeps the other writer's finalizer", async () => {
  await using ns = await createNamespace("helpers-finalizers");
  await using client = await adminClient();
  const created = await client.create(CONFIG_MAPS, { metadata: { name: "guarded", namespace: ns.name } });
  await client.patch(CONFIG_MAPS, "guarded", { metadata: { finalizers: ["third.party/hold"] } }, {
    type: "merge",
    namespace: ns.name,
  });
  const ours = await addFinalizer(client, CONFIG_MAPS, created, "kubeloop.test/cleanup");
  assert.deepEqual(ours.metadata.finalizers, ["third.party/hold", "kubeloop.test/cleanup"]);
  await client.delete(CONFIG_MAPS, "guarded", { namespace: ns.name });
  const terminating = await client.get(CONFIG_MAPS, "guarded", { namespace: ns.name });
  assert.equal(isTerminating(terminating), true);
  const afterOurs = await removeFinalizer(client, CONFIG_MAPS, terminating, "kubeloop.test/cleanup");
  assert.deepEqual(afterOurs?.metadata.finalizers, ["third.party/hold"]);
  await removeFinalizer(client, CONFIG_MAPS, afterOurs!, "third.party/hold");
  await assert.rejects(
    client.get(CONFIG_MAPS, "guarded", { namespace: ns.name }),
    (e: unknown) => e instanceof ApiError && e.isNotFound,
  );
});

Deno.test("createOrPatch creates, patches the difference, skips no-ops, and a stale copy gets 409", async () => {
  await using ns = await createNamespace("helpers-create-or-patch");
  await using client = await adminClient();
  const target = { name: "settings", namespace: ns.name };
  const created = await createOrPatch(client, CONFIG_MAPS, target, (cm) => void (cm.data = { a: "1" }));
  assert.equal(created.operation, "created");
  const patched = await createOrPatch(client, CONFIG_MAPS, target, (cm) => void (cm.data = { b: "2" }));
  assert.equal(patched.operation, "patched");
  assert.deepEqual(patched.object.data, { b: "2" }, "the removed key went as null");
  const same = await createOrPatch(client, CONFIG_MAPS, target, (cm) => void (cm.data = { b: "2" }));
  assert.equal(same.operation, "unchanged");
  await assert.rejects(
    createOrPatch(client, CONFIG_MAPS, target, (cm) => void (cm.data = { c: "3" }), {
      current: created.object,
    }),
    (e: unknown) => e instanceof ApiError && e.isConflict,
  );
});

Deno.test("an applied dependent with a controller reference is collected with its owner", async () => {
  await using ns = await createNamespace("helpers-apply-gc");
  await using client = await adminClient();
  const owner = await client.create(CONFIG_MAPS, { metadata: { name: "owner", namespace: ns.name } });
  const dependent: ConfigMap = await apply(client, CONFIG_MAPS, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "dependent",
      namespace: ns.name,
      ownerReferences: [controllerReference(owner, CONFIG_MAPS)],
    },
    data: { copy: "yes" },
  }, { fieldManager: "kubeloop-test" });
  assert.equal(dependent.metadata.ownerReferences?.[0]?.uid, owner.metadata.uid);
  await client.delete(CONFIG_MAPS, "owner", { namespace: ns.name });
  await eventually(async () => {
    try {
      await client.get(CONFIG_MAPS, "dependent", { namespace: ns.name });
      return undefined;
    } catch (e) {
      return e instanceof ApiError && e.isNotFound ? true : undefined;
    }
  }, { timeoutMs: 30_000, message: "the garbage collector did not delete the dependent" });
});
