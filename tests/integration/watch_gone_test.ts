// A real 410 Gone from the kube-apiserver makes the watcher relist, and the relist loses no delete.
//
// What yields 410 on this server (k8s.io/apiserver v0.37, found by trying): watches of most resources
// are served by the apiserver's watch cache, which keeps its own history (at least 75 s, growing with
// churn) and is not affected by compacting etcd — resuming a ConfigMap watch from a compacted revision
// still succeeds. Events (core/v1 and events.k8s.io/v1) are the exception: kube-apiserver disables
// their watch cache by default, so their watches go straight to etcd, and resuming one from a revision
// below the compaction point is answered with HTTP 200 and a watch event
// `ERROR {code: 410, reason: "Expired"}`. That is the path tested here.
import assert from "node:assert/strict";
import { IndexedStore, type StoreChange, StoreWriter } from "../../lib/cache/mod.ts";
import { EVENTS, type KubeObject } from "../../lib/resources/mod.ts";
import { type ListOptions, type RawWatchOptions } from "../../lib/client/mod.ts";
import { type ListWatcher, type RawWatchEventType, watcher, type WatcherEvent } from "../../lib/watch/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { compactEtcd, createNamespace, eventually } from "../_util/testenv.ts";
import { testEvent } from "../_util/test_event.ts";
import type { DeepReadonly } from "../../lib/resources/mod.ts";

Deno.test("resuming a watch from a compacted resourceVersion relists, and the deleted object is delivered as a delete", async () => {
  await using ns = await createNamespace("gone");
  await using client = await adminClient();
  for (const name of ["keep", "drop", "change"]) {
    await client.create(EVENTS, testEvent(name, ns.name, "kubeloop.test/gone", "one"));
  }

  // The second watch (the resume after the first one times out) waits at this gate until the
  // changes and the compaction are done.
  let openGate!: () => void;
  const gate = new Promise<void>((resolve) => openGate = resolve);
  let watchCalls = 0;
  const gated: ListWatcher = {
    list: (ref, options) => client.list(ref, options),
    async watch(ref, options) {
      if (++watchCalls === 2) await gate;
      return await client.watch(ref, options);
    },
  };
  const lists: ListOptions[] = [];
  const watches: RawWatchOptions[] = [];
  const wire: RawWatchEventType[] = [];
  const events: WatcherEvent[] = [];
  const stop = new AbortController();
  stop.signal.addEventListener("abort", () => openGate());
  const source = watcher(gated, EVENTS, {
    namespace: ns.name,
    signal: stop.signal,
    initialList: "paged",
    // Above the watcher's 1 s "ended early" threshold: a watch the server times out after 1 s with no event
    // could be measured just under it and reported as an error.
    timeoutSecondsRange: [2, 3],
    hooks: {
      onList: (options) => void lists.push(options),
      onWatch: (options) => void watches.push(options),
      onWireEvent: (type) => void wire.push(type),
    },
  });
  const consuming = (async () => {
    for await (const e of source) events.push(e);
  })();
  await using _stop = {
    async [Symbol.asyncDispose]() {
      stop.abort();
      await consuming;
    },
  };

  await eventually(() => watches.length === 2 || undefined, { message: "the resume after the first watch" });
  const resumeFrom = watches[1]?.resourceVersion ?? "";
  assert.ok(resumeFrom !== "", "the resume names a resourceVersion");
  const listedOnce = events.length;
  assert.deepEqual(events.map((e) => e.type), ["init", "initApply", "initApply", "initApply", "initDone"]);

  await client.delete(EVENTS, "drop", { namespace: ns.name });
  const old = eventNamed(events, "change");
  const changed = await client.replace<KubeObject>(EVENTS, {
    ...old,
    metadata: { ...old.metadata, labels: { round: "two" } },
  });
  const added = await client.create(EVENTS, testEvent("added", ns.name, "kubeloop.test/gone", "one"));
  const compactedAt = await compactEtcd();
  assert.ok(compactedAt > Number(resumeFrom), "the resume point is below the compaction");
  openGate();

  await eventually(() => events.slice(listedOnce).some((e) => e.type === "initDone") || undefined, {
    message: "the relist",
  });
  assert.ok(
    wire.includes("ERROR"),
    `the server answered the resume with an ERROR event (wire: ${wire.join(", ")})`,
  );
  assert.equal(lists.length, 2, "listed at start and again after the 410");
  assert.equal(lists[0]?.resourceVersion, undefined, "the first list is a consistent read");
  assert.equal(lists[1]?.resourceVersion, undefined, "so is the relist");
  assert.equal(events.some((e) => e.type === "error"), false, "410 is handled by relisting, not reported");

  // A consumer's store: the relist turns the missed delete into a delete with an unknown final state.
  const store = new IndexedStore<KubeObject>();
  const writer = new StoreWriter(store);
  const initial = events.slice(0, listedOnce).flatMap((e) => writer.apply(e));
  assert.equal(initial.length, 3);
  const afterRelist = events.slice(listedOnce).flatMap((e) => writer.apply(e));
  assert.deepEqual(afterRelist.map(describe).sort(), [
    `add ${ns.name}/added`,
    `delete ${ns.name}/drop finalStateUnknown`,
    `update ${ns.name}/change`,
  ]);
  const server = await client.list(EVENTS, { namespace: ns.name });
  assert.deepEqual(versions(store.list()), versions(server.items));
  assert.equal(store.get(`${ns.name}/change`)?.metadata.resourceVersion, changed.metadata.resourceVersion);
  assert.equal(store.get(`${ns.name}/added`)?.metadata.uid, added.metadata.uid);
});

function eventNamed(events: WatcherEvent[], name: string): KubeObject {
  for (const e of events) if (e.type === "initApply" && e.object.metadata.name === name) return e.object;
  throw new Error(`no initApply for ${name}`);
}

function describe(change: StoreChange<KubeObject>): string {
  const key = `${change.object.metadata.namespace}/${change.object.metadata.name}`;
  if (change.type === "delete") return `delete ${key}${change.finalStateUnknown ? " finalStateUnknown" : ""}`;
  return `${change.type} ${key}`;
}

function versions(objects: readonly DeepReadonly<KubeObject>[]): string[] {
  return objects.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
}
