import assert from "node:assert/strict";
import { type InformerScope, SharedInformerFactory } from "../../lib/cache/mod.ts";
import type { KubeObject, ResourceRef } from "../../lib/resources/mod.ts";
import {
  Controller,
  type InformerLike,
  type InformerSource,
  labelsMatch,
  ownsSource,
  type ReconcileRequest,
  watchesSource,
} from "../../lib/controller/mod.ts";
import { CONFIG_MAPS, type ConfigMap, SECRETS } from "../../lib/resources/mod.ts";
import { FakeApi, FakeInformers, flush } from "../../lib/testing/mod.ts";
import { obj } from "./fake_informers.ts";
import { setup } from "./controller_setup.ts";

Deno.test("predicates apply to the initial list: objects they reject are not reconciled at start", async () => {
  const calls: ReconcileRequest[] = [];
  const s = setup({
    reconcile: (r) => {
      calls.push(r);
      return Promise.resolve();
    },
    predicates: [labelsMatch({ matchLabels: { mirror: "true" } })],
  });
  s.foos.add(obj("wanted", { labels: { mirror: "true" } }));
  s.foos.add(obj("other", { labels: { mirror: "false" } }));
  s.foos.add(obj("plain"));
  const { done } = await s.start();
  await flush();
  assert.deepEqual(calls, [{ namespace: "ns", name: "wanted" }]);
  s.ctl.abort();
  await done;
});

/** Records which scope each informer was asked for. */
class RecordingSource implements InformerSource {
  readonly asked: string[] = [];
  readonly #fakes = new FakeInformers();
  informer<T extends KubeObject>(ref: ResourceRef<T>, options: InformerScope = {}): InformerLike<T> {
    this.asked.push(`${ref.plural} ${JSON.stringify(options)}`);
    return this.#fakes.informer(ref);
  }
}

Deno.test("for, owns and watches each get their own scope; the namespace defaults to the controller's", () => {
  const source = new RecordingSource();
  new Controller(source, {
    name: "scoped",
    namespace: "team",
    for: { ref: CONFIG_MAPS, labelSelector: "mirror=true" },
    owns: [
      ownsSource(CONFIG_MAPS, { labelSelector: "mirror.kubeloop.dev/copy", metadataOnly: true }),
      { ref: SECRETS, namespace: "elsewhere", fieldSelector: "type=Opaque" },
    ],
    watches: [watchesSource(SECRETS, (s) => [{ name: s.metadata.name ?? "" }], { labelSelector: "a=b" })],
    reconcile: () => Promise.resolve(),
  });
  assert.deepEqual(source.asked, [
    'configmaps {"namespace":"team","labelSelector":"mirror=true"}',
    'configmaps {"namespace":"team","labelSelector":"mirror.kubeloop.dev/copy","metadataOnly":true}',
    'secrets {"namespace":"elsewhere","fieldSelector":"type=Opaque"}',
    'secrets {"namespace":"team","labelSelector":"a=b"}',
  ]);
});

Deno.test("on a FakeApi, a label-scoped primary caches only matching objects and a metadata-only source no data", async () => {
  const api = new FakeApi();
  const big = "x".repeat(10_000);
  api.seed(
    CONFIG_MAPS,
    { metadata: { name: "a", namespace: "ns", labels: { mirror: "true" } }, data: { big } },
    { metadata: { name: "b", namespace: "ns" }, data: { big } },
  );
  const factory = new SharedInformerFactory(api);
  const reconciled: string[] = [];
  const c = new Controller<ConfigMap>(factory, {
    name: "mirror",
    for: { ref: CONFIG_MAPS, labelSelector: "mirror=true" },
    owns: [{ ref: CONFIG_MAPS, metadataOnly: true }],
    reconcile: (r) => {
      reconciled.push(r.name);
      return Promise.resolve();
    },
  });
  const stop = new AbortController();
  factory.start(stop.signal);
  const run = c.run({ signal: stop.signal });
  const metadata = factory.informer(CONFIG_MAPS, { metadataOnly: true });
  try {
    await metadata.ready(stop.signal);
    await c.primary.ready(stop.signal);
    assert.deepEqual(c.primary.store.keys(), ["ns/a"]);
    const partial = metadata.store.get("ns/b");
    assert.equal(partial?.kind, "PartialObjectMetadata");
    assert.equal((partial as Record<string, unknown> | undefined)?.["data"], undefined);
    assert.equal(factory.size, 2, "the metadata-only informer is shared with the controller's owned source");
    await flush();
    assert.deepEqual(reconciled, ["a"]);
  } finally {
    factory.release(metadata);
    stop.abort();
    await run;
    await factory.stopped();
  }
});
