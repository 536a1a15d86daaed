// Read-your-writes in an informer over FakeApi: a write's answer is cached when the write returns, however
// late the watch is, no older watch event undoes it, and the change goes to subscribers once, tagged with
// the writing reconcile when it is that write's doing alone, whichever of answer and echo comes first.
import assert from "node:assert/strict";
import { type ChangeInfo, Informer, type InformerOptions } from "../../lib/cache/mod.ts";
import { loadWriteOrigins, runAsWriter, type WriteOrigin } from "../../lib/_internal/write_origin.ts";
import {
  CONFIG_MAPS,
  type ConfigMap,
  type DeepReadonly,
  type KubeObject,
  type Namespace,
  NAMESPACES,
} from "../../lib/resources/mod.ts";
import { WriteListeners } from "../../lib/client/mod.ts";
import {
  FakeApi,
  type FakeApiOptions,
  FakeClock,
  flush,
  type LogLine,
  MemoryLogger,
} from "../../lib/testing/mod.ts";
import { GatedWatch } from "../_util/gated_watch.ts";

const origin: WriteOrigin = { writer: {}, name: "test", key: "ns/a" };
await loadWriteOrigins(); // a Controller does this when it starts
const cm = (name: string, data: Record<string, string> = {}, extra: Partial<ConfigMap["metadata"]> = {}) => ({
  metadata: { name, namespace: "ns", ...extra },
  data,
});

/** An informer over a gated FakeApi, running, synced, recording "type:name@rv[ by origin]" calls. */
async function start(
  options: Omit<InformerOptions<ConfigMap>, "clock"> = {},
  apiOptions: FakeApiOptions = {},
) {
  const api = new FakeApi({ clock: new FakeClock(), ...apiOptions });
  const gate = new GatedWatch(api);
  const informer = new Informer<ConfigMap>(gate, CONFIG_MAPS, {
    clock: new FakeClock(),
    writes: api,
    ...options,
  });
  const calls: string[] = [];
  const tag = (o: DeepReadonly<KubeObject>, info?: ChangeInfo) =>
    `${o.metadata.name}@${o.metadata.resourceVersion}${info?.origin ? ` by ${info.origin.key}` : ""}`;
  informer.subscribe({
    onAdd: (o, info) => void calls.push(`add:${tag(o, info)}`),
    onUpdate: (_, o, info) => void calls.push(`update:${tag(o, info)}`),
    onDelete: (o, info) => void calls.push(`delete:${tag(o, info)}`),
  });
  const stop = new AbortController();
  const done = informer.run({ signal: stop.signal });
  await informer.ready();
  return {
    api,
    gate,
    informer,
    calls,
    rv: (name: string) => informer.store.getByName(name, "ns")?.metadata.resourceVersion,
    async [Symbol.asyncDispose]() {
      gate.open();
      stop.abort();
      await done;
    },
  };
}

Deno.test("a write's answer is cached when the write returns, before its watch event; older events change nothing", async () => {
  await using t = await start();
  const [a] = t.api.seed(CONFIG_MAPS, cm("a", { v: "1" }));
  await flush();
  t.gate.close(); // the watch is late from here on
  const v2 = await runAsWriter(
    origin,
    () => t.api.patch(CONFIG_MAPS, "a", { data: { v: "2" } }, { type: "merge", namespace: "ns" }),
  );
  assert.equal(t.rv("a"), v2.metadata.resourceVersion, "the writer reads its write at once");
  const v3 = await t.api.patch(CONFIG_MAPS, "a", { data: { v: "3" } }, { type: "merge", namespace: "ns" });
  assert.equal(t.informer.store.getByName("a", "ns")?.data?.v, "3");
  t.gate.open(); // both watch events arrive now: the first older than the cache, the second equal
  await flush();
  await flush();
  assert.equal(t.rv("a"), v3.metadata.resourceVersion, "the older event did not bring v2 back");
  assert.deepEqual(t.calls, [
    `add:a@${a?.metadata.resourceVersion}`,
    `update:a@${v2.metadata.resourceVersion} by ns/a`,
    `update:a@${v3.metadata.resourceVersion}`,
  ]);
});

Deno.test("when the echo comes first, the change is held until the answer, then handed on once, tagged", async () => {
  let seenFirst = false;
  await using t = await start({}, {
    beforeAnswer: async () => {
      while (t.rv("a") !== t.api.resourceVersion) await flush(); // the informer has applied the echo
      seenFirst = t.calls.length === 1; // ... and told nobody yet
    },
  });
  t.api.seed(CONFIG_MAPS, cm("a", { v: "1" }));
  await flush();
  const v2 = await runAsWriter(
    origin,
    () => t.api.patch(CONFIG_MAPS, "a", { data: { v: "2" } }, { type: "merge", namespace: "ns" }),
  );
  assert.equal(seenFirst, true);
  await flush();
  assert.deepEqual(t.calls.slice(1), [`update:a@${v2.metadata.resourceVersion} by ns/a`]);
});

Deno.test("someone else's change merged into a write's answer is not tagged: the writer must look again", async () => {
  await using t = await start();
  t.api.seed(CONFIG_MAPS, cm("a", { v: "1" }, { labels: { x: "1" } }));
  await flush();
  t.gate.close();
  t.api.seed(CONFIG_MAPS, cm("a", { v: "1", theirs: "yes" }, { labels: { x: "1" } })); // unseen by the cache
  const out = await runAsWriter(
    origin,
    () =>
      t.api.patch(CONFIG_MAPS, "a", { metadata: { labels: { x: "2" } } }, { type: "merge", namespace: "ns" }),
  );
  assert.equal(t.calls.at(-1), `update:a@${out.metadata.resourceVersion}`, "no origin: not ours alone");
  assert.equal(t.informer.store.getByName("a", "ns")?.data?.theirs, "yes");
});

Deno.test("deletes: gone at once, the DELETED event delivers nothing, and a late event does not bring it back", async () => {
  await using t = await start();
  t.api.seed(CONFIG_MAPS, cm("plain"), cm("held", {}, { finalizers: ["f"] }));
  await flush();
  t.gate.close();
  await t.api.patch(CONFIG_MAPS, "plain", { data: { late: "1" } }, { type: "merge", namespace: "ns" });
  await runAsWriter(origin, () => t.api.delete(CONFIG_MAPS, "plain", { namespace: "ns" }));
  assert.equal(t.rv("plain"), undefined, "answered by a Status naming the uid: removed");
  const marked = await runAsWriter(origin, async () => {
    await t.api.delete(CONFIG_MAPS, "held", { namespace: "ns" });
    return t.informer.store.getByName("held", "ns");
  });
  assert.ok(marked?.metadata.deletionTimestamp, "a finalizer keeps it: marked");
  await runAsWriter(
    origin,
    () =>
      t.api.patch(CONFIG_MAPS, "held", { metadata: { finalizers: null } }, {
        type: "merge",
        namespace: "ns",
      }),
  );
  assert.equal(t.rv("held"), undefined, "its last finalizer removed while deleting: gone");
  const before = t.calls.length;
  t.gate.open();
  await flush();
  await flush();
  assert.deepEqual(t.calls.slice(before), [], "the late MODIFIED and the DELETED events change nothing");
  assert.deepEqual(t.calls.filter((c) => c.startsWith("delete")).map((c) => c.replace(/@\d+/, "")), [
    "delete:plain by ns/a",
    "delete:held by ns/a",
  ]);
});

Deno.test("the informer's scope applies: a metadata-only one caches metadata, a labelled one only matches", async () => {
  const api = new FakeApi();
  const meta = new Informer(api, CONFIG_MAPS, { metadataOnly: true, namespace: "ns" });
  const labelled = new Informer(api, CONFIG_MAPS, { labelSelector: "mirror=true" });
  const stop = new AbortController();
  const runs = [meta.run({ signal: stop.signal }), labelled.run({ signal: stop.signal })];
  try {
    await meta.ready();
    await labelled.ready();
    const made = await api.create(CONFIG_MAPS, {
      metadata: { name: "a", namespace: "ns" },
      data: { big: "x" },
    });
    const cached = meta.store.get("ns/a") as (KubeObject & { data?: unknown }) | undefined;
    assert.equal(cached?.kind, "PartialObjectMetadata");
    assert.equal(cached?.metadata.resourceVersion, made.metadata.resourceVersion);
    assert.equal(cached?.data, undefined);
    assert.equal(labelled.store.get("ns/a"), undefined, "not in its scope");
    await api.patch(CONFIG_MAPS, "a", { metadata: { labels: { mirror: "true" } } }, {
      type: "merge",
      namespace: "ns",
    });
    assert.equal(labelled.store.get("ns/a")?.metadata.labels?.mirror, "true", "in its scope now");
    await api.create(CONFIG_MAPS, { metadata: { name: "b", namespace: "other" } });
    assert.equal(meta.store.get("other/b"), undefined, "another namespace");
  } finally {
    stop.abort();
    await Promise.all(runs);
  }
});

Deno.test("writes: false leaves the cache to the watch", async () => {
  await using t = await start({ writes: false });
  t.gate.close();
  await t.api.create(CONFIG_MAPS, cm("a"));
  assert.equal(t.rv("a"), undefined);
  t.gate.open();
  while (t.rv("a") === undefined) await flush();
});

Deno.test("an answer that cannot be cached is logged, and the changes held for its key go on", async () => {
  const api = new FakeApi();
  const source = new WriteListeners((error) => {
    throw error;
  });
  const lines: LogLine[] = [];
  const informer = new Informer<ConfigMap>(api, CONFIG_MAPS, {
    writes: source,
    logger: new MemoryLogger(lines),
  });
  const calls: string[] = [];
  informer.subscribe({ onUpdate: (_, o) => void calls.push(`update:${o.data?.v}`) });
  const stop = new AbortController();
  const done = informer.run({ signal: stop.signal });
  try {
    await informer.ready();
    api.seed(CONFIG_MAPS, cm("a", { v: "1" }));
    while (!informer.store.get("ns/a")) await flush();
    const end = source.start({
      ref: CONFIG_MAPS,
      verb: "patch",
      namespace: "ns",
      name: "a",
      subresource: undefined,
      patchType: "merge",
      body: {},
    });
    api.seed(CONFIG_MAPS, cm("a", { v: "2" })); // someone's change while our write is in flight: held
    while (informer.store.get("ns/a")?.data?.v !== "2") await flush();
    assert.deepEqual(calls, []);
    end({ ok: true, answer: { metadata: { namespace: "ns" } } }); // no name: objectKey throws
    assert.deepEqual(calls, ["update:2"]);
    assert.ok(
      lines.some((l) => l.msg === "Cannot take a write's answer into the cache"),
      JSON.stringify(lines),
    );
  } finally {
    stop.abort();
    await done;
  }
});

Deno.test("a Namespace held by spec.finalizers stays cached as terminating after its delete's answer", async () => {
  const api = new FakeApi();
  const source = new WriteListeners((error) => {
    throw error;
  });
  const informer = new Informer<Namespace>(api, NAMESPACES, { writes: source });
  const stop = new AbortController();
  const done = informer.run({ signal: stop.signal });
  try {
    await informer.ready();
    const [live] = api.seed(NAMESPACES, {
      metadata: { name: "team" },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    });
    while (!informer.store.get("team")) await flush();
    const end = source.start({
      ref: NAMESPACES,
      verb: "delete",
      namespace: undefined,
      name: "team",
      subresource: undefined,
      patchType: undefined,
      body: { kind: "DeleteOptions", apiVersion: "v1" },
    });
    // kube-apiserver's answer (v1.37): the Namespace, marked and Terminating, held by the namespace
    // controller's spec.finalizers; no metadata.finalizers and no deletionGracePeriodSeconds.
    const rv = String(Number(live?.metadata.resourceVersion) + 1);
    const answer = {
      ...structuredClone(live),
      metadata: { ...live?.metadata, resourceVersion: rv, deletionTimestamp: "2026-12-03T17:41:39Z" },
      status: { phase: "Terminating" },
    };
    end?.({ ok: true, answer });
    const cached = informer.store.get("team");
    assert.equal(cached?.metadata.resourceVersion, rv, "the terminating Namespace is still cached");
    assert.equal(cached?.status?.phase, "Terminating");
  } finally {
    stop.abort();
    await done;
  }
});
