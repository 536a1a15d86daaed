import assert from "node:assert/strict";
import { Informer } from "../../lib/cache/informer.ts";
import type { InformerPartition } from "../../lib/cache/informer_partition.ts";
import type { DeepReadonly } from "../../lib/resources/deep_readonly.ts";
import type { KubeObject } from "../../lib/resources/object.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { cm, configMaps, line, page, ScriptedBody, ScriptedListWatcher } from "../watch/_helpers.ts";

/** A partition whose share is a set of names, changed by the test. */
class NamePartition implements InformerPartition {
  readonly id = "names";
  version = 1;
  syncedVersions: number[] = [];
  #listeners = new Set<() => void>();
  constructor(public names: Set<string>, public selector: string | undefined = `share-${1}`) {}
  get shardSelector(): string | undefined {
    return this.selector;
  }
  includes(object: DeepReadonly<KubeObject>): boolean {
    return this.names.has(object.metadata.name ?? "");
  }
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
  synced(version: number): void {
    this.syncedVersions.push(version);
  }
  change(names: string[]): void {
    this.names = new Set(names);
    this.version++;
    this.selector = `share-${this.version}`;
    for (const l of this.#listeners) l();
  }
}

async function until(cond: () => boolean, clock: FakeClock): Promise<void> {
  for (let i = 0; i < 300 && !cond(); i++) await clock.advance(0);
  assert.ok(cond(), "condition not reached");
}

Deno.test("a server that ignores the shard selector still leaves only the share in the cache", async () => {
  const clock = new FakeClock();
  const everything = [cm("a", "1"), cm("b", "2"), cm("c", "3")];
  const lw = new ScriptedListWatcher([page(everything, "10")], [
    new ScriptedBody([line("ADDED", cm("d", "11")), line("ADDED", cm("e", "12"))], { stall: true }),
  ]);
  const partition = new NamePartition(new Set(["a", "c", "e"]));
  const informer = new Informer(lw, configMaps, { clock, partition, initialList: "paged" });
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  await until(() => informer.store.keys().length === 3, clock);
  assert.deepEqual(informer.store.keys().sort(), ["ns/a", "ns/c", "ns/e"]);
  assert.equal(lw.lists[0]!.shardSelector, "share-1");
  assert.equal(lw.watches[0]!.shardSelector, "share-1");
  assert.deepEqual(partition.syncedVersions, [1]);
  stop.abort();
  await running;
});

Deno.test("a changed share lists again: what left the share is deleted, what joined it is added", async () => {
  const clock = new FakeClock();
  const lw = new ScriptedListWatcher([
    page([cm("a", "1"), cm("b", "2")], "10"),
    page([cm("b", "2"), cm("c", "3")], "20"),
  ], [new ScriptedBody([], { stall: true }), new ScriptedBody([], { stall: true })]);
  const partition = new NamePartition(new Set(["a", "b"]));
  const informer = new Informer(lw, configMaps, { clock, partition, initialList: "paged" });
  const seen: string[] = [];
  informer.subscribe({
    onAdd: (o) => void seen.push(`add:${o.metadata.name}`),
    onDelete: (o) => void seen.push(`delete:${o.metadata.name}`),
  });
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  await until(() => partition.syncedVersions.length === 1, clock);
  partition.change(["b", "c"]);
  await until(() => partition.syncedVersions.length === 2, clock);
  assert.deepEqual(partition.syncedVersions, [1, 2]);
  assert.equal(lw.lists[1]!.shardSelector, "share-2");
  assert.deepEqual(informer.store.keys().sort(), ["ns/b", "ns/c"]);
  assert.deepEqual(seen, ["add:a", "add:b", "add:c", "delete:a"]);
  assert.equal(lw.bodies[0]!.cancelled, true, "the old share's watch was closed");
  stop.abort();
  await running;
});

Deno.test("an object that leaves the share in a watch event leaves the cache", async () => {
  const clock = new FakeClock();
  const lw = new ScriptedListWatcher([page([cm("a", "1")], "10")], [
    new ScriptedBody([
      line(
        "MODIFIED",
        cm("a", "11", {
          metadata: { name: "a", namespace: "ns", resourceVersion: "11", labels: { out: "1" } },
        }),
      ),
    ], {
      stall: true,
    }),
  ]);
  const partition = new NamePartition(new Set(["a"]));
  partition.includes = (o) => o.metadata.labels?.out === undefined;
  const informer = new Informer(lw, configMaps, { clock, partition, initialList: "paged" });
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  await until(() => informer.hasSynced() && informer.store.keys().length === 0, clock);
  stop.abort();
  await running;
});
