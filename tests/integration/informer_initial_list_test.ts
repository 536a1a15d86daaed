// The two ways an informer gets its initial state — a streaming list (a watch with
// sendInitialEvents=true) and paged lists — fill the same store from the real kube-apiserver.
import assert from "node:assert/strict";
import { Informer, type InformerMetrics, noopInformerMetrics } from "../../lib/cache/mod.ts";
import { CONFIG_MAPS, type KubeObject } from "../../lib/resources/mod.ts";
import { type KubeClient, type ListOptions, type RawWatchOptions } from "../../lib/client/mod.ts";
import type { InitialListMode, ListWatcher, RawWatchEventType } from "../../lib/watch/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { createNamespace, kubectlOk } from "../_util/testenv.ts";
import type { DeepReadonly } from "../../lib/resources/mod.ts";

const COUNT = 2000;

/** What one informer did on the wire, and the store it ended up with (name@resourceVersion). */
interface Sync {
  readonly lists: ListOptions[];
  readonly watches: RawWatchOptions[];
  readonly wire: Map<RawWatchEventType, number>;
  readonly store: string[];
}

/** Syncs one informer in `mode` (paged lists in pages of `pageSize`), recording its requests, and stops it. */
async function sync(
  client: KubeClient,
  namespace: string,
  initialList: InitialListMode,
  pageSize?: number,
): Promise<Sync> {
  const lists: ListOptions[] = [];
  const watches: RawWatchOptions[] = [];
  const recording: ListWatcher = {
    list: (ref, options) => (lists.push(options), client.list(ref, options)),
    watch: (ref, options) => (watches.push(options), client.watch(ref, options)),
  };
  const wire = new Map<RawWatchEventType, number>();
  const metrics: InformerMetrics = {
    ...noopInformerMetrics,
    eventReceived: (_resource, type) => void wire.set(type, (wire.get(type) ?? 0) + 1),
  };
  const informer = new Informer(recording, CONFIG_MAPS, {
    namespace,
    initialList,
    metrics,
    ...(pageSize === undefined ? {} : { pageSize }),
  });
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  try {
    await informer.ready(AbortSignal.timeout(20_000));
    return { lists, watches, wire, store: versions(informer.store.list()) };
  } finally {
    stop.abort();
    await running;
  }
}

function versions(objects: readonly DeepReadonly<KubeObject>[]): string[] {
  return objects.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
}

Deno.test("a streaming list and paged lists of 2,000 ConfigMaps produce the same store", async () => {
  await using ns = await createNamespace("initial-list");
  const items = Array.from({ length: COUNT }, (_, i) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${String(i).padStart(4, "0")}`, namespace: ns.name },
    data: { i: String(i) },
  }));
  await kubectlOk(["create", "-f", "-"], {
    stdin: JSON.stringify({ apiVersion: "v1", kind: "List", items }),
  });
  await using client = await adminClient();

  const streamed = await sync(client, ns.name, "stream");
  assert.equal(streamed.lists.length, 0, "no list request: the server accepted the streaming list");
  assert.equal(streamed.watches[0]?.sendInitialEvents, true);
  assert.equal(streamed.watches[0]?.resourceVersionMatch, "NotOlderThan");
  assert.equal(streamed.wire.get("ADDED"), COUNT, "every object arrived as an initial ADDED event");
  assert.ok((streamed.wire.get("BOOKMARK") ?? 0) >= 1, "the initial-events-end bookmark arrived");

  // Smaller pages than the default (5,000) so that the server serves several, continue tokens and all.
  const paged = await sync(client, ns.name, "paged", 700);
  assert.deepEqual(paged.lists.map((l) => l.limit), [700, 700, 700], "three pages: 700, 700 and 600");
  assert.equal(paged.lists[0]?.resourceVersion, undefined, "a consistent read");
  assert.equal(paged.lists[0]?.continue, undefined);
  assert.ok(paged.lists.slice(1).every((l) => l.continue), "the later pages continue the first");
  assert.equal(paged.watches.some((w) => w.sendInitialEvents), false, "no streaming list in paged mode");
  assert.equal(paged.wire.get("ADDED") ?? 0, 0, "the objects came from list pages, not from a watch");

  assert.equal(streamed.store.length, COUNT);
  assert.deepEqual(streamed.store, paged.store, "same keys and resourceVersions");
  const server: string[] = [];
  for await (const page of client.listAll(CONFIG_MAPS, { namespace: ns.name })) {
    server.push(...versions(page.items));
  }
  assert.deepEqual(paged.store, server.sort(), "and both match the server");
});
