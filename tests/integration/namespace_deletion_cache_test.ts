// A Namespace's deletion on the real kube-apiserver is held by the namespace controller's spec.finalizers
// while its content goes: an informer over the deleting client keeps it cached, Terminating, until the
// watch's DELETED, instead of taking the delete's answer (deletionTimestamp, no metadata.finalizers) for
// its last state. A controller that waits for a Namespace to go must see it while it is terminating.
import assert from "node:assert/strict";
import { Informer } from "../../lib/cache/mod.ts";
import { CONFIG_MAPS, type Namespace, NAMESPACES } from "../../lib/resources/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { eventually } from "../_util/testenv.ts";

Deno.test("a deleted Namespace stays cached as Terminating until its content is gone", async () => {
  await using client = await adminClient();
  const name = `ns-delete-${crypto.randomUUID().slice(0, 8)}`;
  const informer = new Informer<Namespace>(client, NAMESPACES, { fieldSelector: `metadata.name=${name}` });
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  try {
    await informer.ready();
    await client.create(NAMESPACES, { metadata: { name } });
    // Content that holds the namespace's deletion until its finalizer is removed.
    await client.create(CONFIG_MAPS, {
      metadata: { name: "held", namespace: name, finalizers: ["example.com/hold"] },
    });
    await eventually(() => informer.store.get(name));
    await client.delete(NAMESPACES, name);
    const cached = informer.store.get(name);
    assert.ok(cached?.metadata.deletionTimestamp, "the delete's answer is cached, marked");
    assert.equal(cached.status?.phase, "Terminating");
    // The namespace controller works on it meanwhile; the cache follows its changes.
    await new Promise((r) => setTimeout(r, 1000));
    assert.ok(informer.store.get(name), "still cached while the ConfigMap holds it");
    assert.ok((await client.get(NAMESPACES, name)).metadata.deletionTimestamp, "and still on the server");
    await client.patch(CONFIG_MAPS, "held", { metadata: { finalizers: null } }, {
      type: "merge",
      namespace: name,
    });
    await eventually(() => informer.store.get(name) === undefined ? true : undefined, { timeoutMs: 60_000 });
  } finally {
    stop.abort();
    await running;
  }
});
