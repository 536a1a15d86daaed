import assert from "node:assert/strict";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { ApiError } from "../../lib/client/mod.ts";
import { CONFIG_MAPS, type ConfigMap, DEPLOYMENTS, NAMESPACES } from "../../lib/resources/mod.ts";
import { FakeApi, FakeClock } from "../../lib/testing/mod.ts";
import { type RawWatchEvent, WatchDecoderStream } from "../../lib/watch/mod.ts";

function cm(name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ns", labels }, data };
}

async function rejects(p: Promise<unknown>, code: number, reason: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof ApiError && e.code === code && e.reason === reason);
}

Deno.test("create assigns identity and a resourceVersion; get and list return copies", async () => {
  const api = new FakeApi({ clock: new FakeClock(Date.UTC(2026, 0, 1)) });
  const created = await api.create(CONFIG_MAPS, cm("a", { k: "v" }));
  assert.equal(created.metadata.namespace, "ns");
  assert.match(created.metadata.uid ?? "", /^[0-9a-f-]{36}$/);
  assert.equal(created.metadata.creationTimestamp, "2026-01-01T00:00:00Z");
  assert.equal(created.metadata.resourceVersion, api.resourceVersion);
  const got = await api.get(CONFIG_MAPS, "a", { namespace: "ns" });
  got.data = { changed: "locally" };
  assert.deepEqual((await api.get(CONFIG_MAPS, "a", { namespace: "ns" })).data, { k: "v" });
  await rejects(api.create(CONFIG_MAPS, cm("a")), 409, "AlreadyExists");
  await rejects(api.get(CONFIG_MAPS, "missing", { namespace: "ns" }), 404, "NotFound");
  const other = await api.create(CONFIG_MAPS, { metadata: { generateName: "gen-" } });
  assert.match(other.metadata.name ?? "", /^gen-/);
  assert.equal(other.metadata.namespace, "default", "the client's default namespace");
});

Deno.test("list filters by namespace, label and field selectors and pages with continue tokens", async () => {
  const api = new FakeApi();
  api.seed(CONFIG_MAPS, cm("a", {}, { app: "web", tier: "1" }), cm("b", {}, { app: "db" }), cm("c"));
  await api.create(CONFIG_MAPS, { metadata: { name: "d", namespace: "other", labels: { app: "web" } } });
  const names = async (options: Parameters<FakeApi["list"]>[1]) =>
    (await api.list(CONFIG_MAPS, options)).items.map((o) => o.metadata.name);
  assert.deepEqual(await names({ labelSelector: "app=web" }), ["a", "d"]);
  assert.deepEqual(await names({ namespace: "ns", labelSelector: "app in (web,db)" }), ["a", "b"]);
  assert.deepEqual(await names({ namespace: "ns", labelSelector: "!app" }), ["c"]);
  assert.deepEqual(await names({ labelSelector: "app!=web,tier" }), []);
  assert.deepEqual(await names({ fieldSelector: "metadata.name=b" }), ["b"]);
  const first = await api.list(CONFIG_MAPS, { limit: 3 });
  assert.equal(first.items.length, 3);
  assert.equal(first.metadata.remainingItemCount, 1);
  const rest = await api.list(CONFIG_MAPS, { limit: 3, continue: first.metadata.continue! });
  assert.deepEqual(rest.items.map((o) => o.metadata.name), ["d"]);
  assert.equal(rest.metadata.continue, undefined);
});

Deno.test("replace and patch are conditional on metadata.resourceVersion; generation moves with the spec", async () => {
  const api = new FakeApi();
  const [d] = api.seed(DEPLOYMENTS, {
    metadata: { name: "web", namespace: "ns" },
    spec: { selector: {}, template: {}, replicas: 1 },
    status: { replicas: 1 },
  });
  const stale = structuredClone(d!);
  const scaled = await api.replace(DEPLOYMENTS, { ...d!, spec: { ...d!.spec, replicas: 2 } });
  assert.equal(scaled.metadata.generation, 2);
  assert.deepEqual(scaled.status, { replicas: 1 }, "main-resource writes keep the status");
  await rejects(api.replace(DEPLOYMENTS, stale), 409, "Conflict");
  await rejects(
    api.patch(DEPLOYMENTS, "web", { metadata: { resourceVersion: stale.metadata.resourceVersion } }, {
      type: "merge",
      namespace: "ns",
    }),
    409,
    "Conflict",
  );
  const labelled = await api.patch(DEPLOYMENTS, "web", { metadata: { labels: { a: "b" } } }, {
    type: "merge",
    namespace: "ns",
  });
  assert.equal(labelled.metadata.generation, 2, "metadata changes do not bump the generation");
  const status = await api.patch(DEPLOYMENTS, "web", { status: { replicas: 2 }, spec: { replicas: 9 } }, {
    type: "merge",
    namespace: "ns",
    subresource: "status",
  });
  assert.equal(status.status?.replicas, 2);
  assert.equal(status.spec.replicas, 2, "a status write changes only the status");
  const json = await api.patch(DEPLOYMENTS, "web", [{ op: "replace", path: "/spec/replicas", value: 3 }], {
    type: "json",
    namespace: "ns",
  });
  assert.equal(json.spec.replicas, 3);
  await rejects(
    api.patch(DEPLOYMENTS, "web", [{ op: "test", path: "/spec/replicas", value: 1 }], {
      type: "json",
      namespace: "ns",
    }),
    422,
    "Invalid",
  );
});

Deno.test("apply creates, merges, and removes what the same manager stopped applying; it needs a manager", async () => {
  const api = new FakeApi();
  const body = (data: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cfg", namespace: "ns", labels: { a: "1" } },
    data,
  });
  const as = (fieldManager: string) => ({ type: "apply" as const, fieldManager, namespace: "ns" });
  await assert.rejects(
    api.patch(CONFIG_MAPS, "cfg", body({}), { type: "apply", namespace: "ns" }),
    TypeError,
  );
  const created = await api.patch(CONFIG_MAPS, "cfg", body({ one: "1", two: "2" }), as("m"));
  assert.deepEqual(created.data, { one: "1", two: "2" });
  await api.patch(CONFIG_MAPS, "cfg", { data: { theirs: "x" } }, { type: "merge", namespace: "ns" });
  const other = await api.patch(CONFIG_MAPS, "cfg", body({ others: "o" }), as("other"));
  assert.deepEqual(other.data, { one: "1", two: "2", theirs: "x", others: "o" }, "another manager adds");
  const dropped = await api.patch(CONFIG_MAPS, "cfg", body({ one: "10" }), as("m"));
  assert.deepEqual(dropped.data, { one: "10", theirs: "x", others: "o" }, "m no longer applies two: removed");
  assert.equal(dropped.metadata.uid, created.metadata.uid);
  assert.deepEqual(dropped.metadata.labels, { a: "1" });
});

Deno.test("deletion waits for finalizers, and owners' deletion collects their dependents", async () => {
  const api = new FakeApi({ clock: new FakeClock(Date.UTC(2026, 0, 1)) });
  const [owner] = api.seed(CONFIG_MAPS, {
    ...cm("owner"),
    metadata: { ...cm("owner").metadata, finalizers: ["x/y"] },
  });
  api.seed(CONFIG_MAPS, {
    ...cm("dependent"),
    metadata: {
      ...cm("dependent").metadata,
      ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner!.metadata.uid! }],
    },
  });
  await api.delete(CONFIG_MAPS, "owner", { namespace: "ns" });
  const terminating = api.object(CONFIG_MAPS, "owner", "ns");
  assert.equal(terminating?.metadata.deletionTimestamp, "2026-01-01T00:00:00Z");
  await rejects(
    api.patch(CONFIG_MAPS, "owner", { metadata: { finalizers: ["x/y", "new/one"] } }, {
      type: "merge",
      namespace: "ns",
    }),
    422,
    "Invalid",
  );
  assert.ok(api.object(CONFIG_MAPS, "dependent", "ns"), "the owner still exists");
  await api.patch(CONFIG_MAPS, "owner", { metadata: { finalizers: null } }, {
    type: "merge",
    namespace: "ns",
  });
  assert.equal(api.object(CONFIG_MAPS, "owner", "ns"), undefined);
  assert.equal(api.object(CONFIG_MAPS, "dependent", "ns"), undefined, "collected with its owner");
  await rejects(api.delete(CONFIG_MAPS, "owner", { namespace: "ns" }), 404, "NotFound");
});

Deno.test("injected faults fail the matching calls, as often as asked, and every call is recorded", async () => {
  const api = new FakeApi();
  api.fail({
    verb: "create",
    resource: "configmaps",
    times: 2,
    error: new ApiError({ code: 500, reason: "InternalError" }),
  });
  await rejects(api.create(CONFIG_MAPS, cm("a")), 500, "InternalError");
  await rejects(api.create(CONFIG_MAPS, cm("a")), 500, "InternalError");
  await api.create(CONFIG_MAPS, cm("a"));
  await api.create(NAMESPACES, { metadata: { name: "team" } });
  assert.deepEqual(api.requests.map((r) => `${r.verb} ${r.resource} ${r.namespace ?? "-"}/${r.name}`), [
    "create configmaps ns/a",
    "create configmaps ns/a",
    "create configmaps ns/a",
    "create namespaces -/team",
  ]);
});

async function readEvents(stream: ReadableStream<Uint8Array>, count: number): Promise<RawWatchEvent[]> {
  const reader = stream.pipeThrough(new WatchDecoderStream()).getReader();
  const out: RawWatchEvent[] = [];
  while (out.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    out.push(value);
  }
  await reader.cancel();
  return out;
}

Deno.test("a watch replays history after its resourceVersion, follows selectors, and expires after compact", async () => {
  const api = new FakeApi();
  api.seed(CONFIG_MAPS, cm("a", {}, { mirror: "true" }));
  const from = api.resourceVersion;
  const watching = api.watch(CONFIG_MAPS, { resourceVersion: from, labelSelector: "mirror=true" });
  const stream = await watching;
  await api.patch(CONFIG_MAPS, "a", { data: { k: "1" } }, { type: "merge", namespace: "ns" });
  await api.patch(CONFIG_MAPS, "a", { metadata: { labels: { mirror: "false" } } }, {
    type: "merge",
    namespace: "ns",
  });
  await api.create(CONFIG_MAPS, cm("b", {}, { mirror: "true" }));
  await api.create(CONFIG_MAPS, cm("ignored"));
  const events = await readEvents(stream, 3);
  const named = (e: RawWatchEvent) =>
    `${e.type} ${e.type === "ERROR" ? "" : (e.object.metadata as { name?: string }).name}`;
  assert.deepEqual(events.map(named), [
    "MODIFIED a",
    "DELETED a",
    "ADDED b",
  ]);
  assert.equal(api.openWatches, 0, "cancelling the stream ends the watch");
  const replay = await readEvents(await api.watch(CONFIG_MAPS, { resourceVersion: from }), 4);
  assert.deepEqual(replay.map((e) => e.type), ["MODIFIED", "MODIFIED", "ADDED", "ADDED"]);
  api.compact();
  await rejects(api.watch(CONFIG_MAPS, { resourceVersion: from }), 410, "Expired");
  const initial = await readEvents(await api.watch(CONFIG_MAPS, { sendInitialEvents: true }), 4);
  assert.deepEqual(initial.map((e) => e.type), ["ADDED", "ADDED", "ADDED", "BOOKMARK"]);
});

Deno.test("a real informer lists and watches a FakeApi and follows its changes", async () => {
  const api = new FakeApi();
  api.seed(CONFIG_MAPS, cm("a"));
  const factory = new SharedInformerFactory(api);
  const informer = factory.informer(CONFIG_MAPS, { namespace: "ns" });
  const stop = new AbortController();
  factory.start(stop.signal);
  try {
    await informer.ready(stop.signal);
    assert.deepEqual(informer.store.keys(), ["ns/a"]);
    const changed = new Promise<string>((resolve) =>
      informer.subscribe({ onUpdate: (_o, n) => resolve(n.data?.k ?? "") })
    );
    await api.patch(CONFIG_MAPS, "a", { data: { k: "v" } }, { type: "merge", namespace: "ns" });
    assert.equal(await changed, "v");
  } finally {
    stop.abort();
    await factory.stopped();
  }
});
