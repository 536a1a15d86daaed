// Informer scopes against the real kube-apiserver: a metadata-only informer receives PartialObjectMetadata
// from both the list and the watch (the server honours our Accept header), and a label-scoped informer
// sees an object that stops matching as deleted.
import assert from "node:assert/strict";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { createNamespace, eventually } from "../_util/testenv.ts";

Deno.test("metadata-only informers cache PartialObjectMetadata from list and watch; scoped ones follow labels", async () => {
  await using ns = await createNamespace("informer-scope");
  await using client = await adminClient();
  const data = { payload: "x".repeat(4096) };
  await client.create(CONFIG_MAPS, {
    metadata: { name: "listed", namespace: ns.name, labels: { app: "a" } },
    data,
  });
  const factory = new SharedInformerFactory(client);
  const metadata = factory.informer(CONFIG_MAPS, { namespace: ns.name, metadataOnly: true });
  const scoped = factory.informer(CONFIG_MAPS, { namespace: ns.name, labelSelector: "app=a" });
  const deleted: string[] = [];
  scoped.subscribe({ onDelete: (o) => void deleted.push(o.metadata.name ?? "") });
  const stop = new AbortController();
  factory.start(stop.signal);
  try {
    await factory.waitForSync(AbortSignal.any([stop.signal, AbortSignal.timeout(15_000)]));
    const listed = metadata.store.getByName("listed", ns.name);
    assert.equal(listed?.kind, "PartialObjectMetadata");
    assert.equal(listed?.apiVersion, "meta.k8s.io/v1");
    assert.equal((listed as Record<string, unknown> | undefined)?.["data"], undefined);
    assert.deepEqual(listed?.metadata.labels, { app: "a" });
    await client.create(CONFIG_MAPS, { metadata: { name: "watched", namespace: ns.name }, data });
    const watched = await eventually(() => metadata.store.getByName("watched", ns.name), {
      message: "watched",
    });
    assert.equal(watched.kind, "PartialObjectMetadata");
    assert.equal((watched as Record<string, unknown>)["data"], undefined);
    assert.deepEqual(
      scoped.store.keys(),
      [`${ns.name}/listed`],
      "the unlabelled one is not in the scoped cache",
    );
    await client.patch(CONFIG_MAPS, "listed", { metadata: { labels: { app: "b" } } }, {
      type: "merge",
      namespace: ns.name,
    });
    await eventually(() => (deleted.includes("listed") ? true : undefined), { message: "scoped delete" });
    assert.equal(scoped.store.size, 0);
  } finally {
    stop.abort();
    await factory.stopped();
  }
});
