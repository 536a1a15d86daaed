// Objects deleted while an informer is cut off from the real kube-apiserver reach its handlers as
// deletes once it reconnects, and its store matches the server again.
//
// The connection is cut by a ListWatcher wrapped around the KubeClient: `cut()` breaks every open
// watch body (as a reset connection would) and fails new watch requests until `restore()`.
//
// Two ways back: ConfigMaps are watched through the apiserver's watch cache, which still holds the
// missed history, so the resumed watch replays the deletes (final state known, no relist). Events have
// no watch cache (kube-apiserver's default), so after compacting etcd the resume is answered
// `ERROR 410 Expired` and only a relist can find the deletes (final state unknown).
import assert from "node:assert/strict";
import { Informer, type InformerMetrics, noopInformerMetrics } from "../../lib/cache/mod.ts";
import {
  CONFIG_MAPS,
  EVENTS,
  type KubeObject,
  type ObjectList,
  type ResourceRef,
} from "../../lib/resources/mod.ts";
import { type KubeClient, type ListOptions, type RawWatchOptions } from "../../lib/client/mod.ts";
import type { ListWatcher } from "../../lib/watch/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { compactEtcd, createNamespace, eventually } from "../_util/testenv.ts";
import { testEvent } from "../_util/test_event.ts";
import type { DeepReadonly } from "../../lib/resources/mod.ts";

/** A ListWatcher whose watch connections can be cut and kept down on demand. */
class CuttableListWatcher implements ListWatcher {
  readonly #client: KubeClient;
  readonly #cuts = new Set<() => void>();
  #down = false;
  /** Watch requests refused while down. */
  refused = 0;

  constructor(client: KubeClient) {
    this.#client = client;
  }

  list<T extends KubeObject>(ref: ResourceRef<T>, options: ListOptions): Promise<ObjectList<T>> {
    return this.#client.list<T>(ref, options);
  }

  async watch(ref: ResourceRef, options: RawWatchOptions): Promise<ReadableStream<Uint8Array>> {
    if (this.#down) {
      this.refused++;
      throw new TypeError("Connection refused (cut by the test)");
    }
    const body = await this.#client.watch(ref, options);
    if (this.#down) {
      // Cut while the request was in flight.
      await body.cancel();
      this.refused++;
      throw new TypeError("Connection reset (cut by the test)");
    }
    const reader = body.getReader();
    const cuts = this.#cuts;
    let cut = () => {};
    return new ReadableStream<Uint8Array>({
      start(controller) {
        cut = () => {
          cuts.delete(cut);
          controller.error(new TypeError("Connection reset (cut by the test)"));
          reader.cancel().catch(() => {});
        };
        cuts.add(cut);
      },
      async pull(controller) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (!cuts.has(cut)) return;
        if (done) {
          cuts.delete(cut);
          controller.close();
        } else {
          controller.enqueue(value);
        }
      },
      async cancel() {
        cuts.delete(cut);
        await reader.cancel();
      },
    });
  }

  /** Breaks every open watch and refuses new ones. */
  cut(): void {
    this.#down = true;
    for (const cut of [...this.#cuts]) cut();
  }

  /** Lets watches through again. */
  restore(): void {
    this.#down = false;
  }
}

/** Counts of the informer metrics these tests read. */
function countingMetrics(): InformerMetrics & { relists: number; errors: number } {
  const counts = { ...noopInformerMetrics, relists: 0, errors: 0 };
  counts.relist = () => void counts.relists++;
  counts.watchError = () => void counts.errors++;
  return counts;
}

interface Deleted {
  readonly key: string;
  readonly uid: string | undefined;
  readonly finalStateUnknown: boolean;
  /** How the informer learned of it: the resumed watch, or the list after a 410. */
  readonly source: string | undefined;
}

/**
 * Runs an informer through a cuttable connection, cuts it, deletes `gone` (and calls `whileDown`),
 * restores it and waits until both deletes were delivered. Returns what the checks need.
 */
async function deleteWhileDisconnected(
  client: KubeClient,
  ref: ResourceRef,
  namespace: string,
  names: readonly string[],
  gone: readonly string[],
  whileDown: () => Promise<void>,
): Promise<{ deleted: Deleted[]; metrics: ReturnType<typeof countingMetrics>; storeVersions: string[] }> {
  const connection = new CuttableListWatcher(client);
  const metrics = countingMetrics();
  const informer = new Informer(connection, ref, {
    namespace,
    metrics,
    backoff: { initialMs: 20, maxMs: 200 },
  });
  const deleted: Deleted[] = [];
  informer.subscribe({
    onDelete: (object, info) =>
      void deleted.push({
        key: `${object.metadata.namespace}/${object.metadata.name}`,
        uid: object.metadata.uid,
        finalStateUnknown: info.finalStateUnknown,
        source: info.source,
      }),
  });
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  try {
    await informer.ready(AbortSignal.timeout(15_000));
    assert.deepEqual(informer.store.keys().sort(), names.map((n) => `${namespace}/${n}`).sort());
    connection.cut();
    await eventually(() => connection.refused >= 2 || undefined, { message: "the informer retrying" });
    for (const name of gone) await client.delete(ref, name, { namespace });
    await whileDown();
    assert.equal(informer.store.size, names.length, "nothing can arrive while disconnected");
    connection.restore();
    await eventually(() => deleted.length >= gone.length || undefined, { message: "the deletes" });
    return {
      deleted,
      metrics,
      storeVersions: versions(informer.store.list()),
    };
  } finally {
    stop.abort();
    await running;
  }
}

function versions(objects: readonly DeepReadonly<KubeObject>[]): string[] {
  return objects.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
}

Deno.test("ConfigMaps deleted while the informer is disconnected arrive as deletes from the resumed watch", async () => {
  await using ns = await createNamespace("disc-cm");
  await using client = await adminClient();
  const names = ["a", "b", "c", "d"];
  const uids = new Map<string, string | undefined>();
  for (const name of names) {
    const cm: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name } };
    uids.set(name, (await client.create(CONFIG_MAPS, cm, { namespace: ns.name })).metadata.uid);
  }
  const { deleted, metrics, storeVersions } = await deleteWhileDisconnected(
    client,
    CONFIG_MAPS,
    ns.name,
    names,
    ["b", "d"],
    async () => void await compactEtcd(),
  );
  assert.deepEqual(deleted.sort((x, y) => x.key.localeCompare(y.key)), [
    { key: `${ns.name}/b`, uid: uids.get("b"), finalStateUnknown: false, source: "watch" },
    { key: `${ns.name}/d`, uid: uids.get("d"), finalStateUnknown: false, source: "watch" },
  ]);
  assert.equal(metrics.relists, 1, "the watch cache still had the history: no relist");
  assert.ok(metrics.errors >= 3, "the cut and the refused watches were reported as errors");
  const server = await client.list(CONFIG_MAPS, { namespace: ns.name });
  assert.deepEqual(storeVersions, versions(server.items));
});

Deno.test("Events deleted while the informer is disconnected arrive as deletes after the 410 relist", async () => {
  await using ns = await createNamespace("disc-ev");
  await using client = await adminClient();
  const names = ["a", "b", "c", "d"];
  const uids = new Map<string, string | undefined>();
  for (const name of names) {
    uids.set(
      name,
      (await client.create(EVENTS, testEvent(name, ns.name, "kubeloop.test/disconnect"))).metadata.uid,
    );
  }
  const { deleted, metrics, storeVersions } = await deleteWhileDisconnected(
    client,
    EVENTS,
    ns.name,
    names,
    ["a", "c"],
    async () => void await compactEtcd(),
  );
  assert.deepEqual(deleted.sort((x, y) => x.key.localeCompare(y.key)), [
    { key: `${ns.name}/a`, uid: uids.get("a"), finalStateUnknown: true, source: "relist" },
    { key: `${ns.name}/c`, uid: uids.get("c"), finalStateUnknown: true, source: "relist" },
  ]);
  assert.equal(metrics.relists, 2, "the initial list and the relist after 410");
  const server = await client.list(EVENTS, { namespace: ns.name });
  assert.deepEqual(storeVersions, versions(server.items));
});
