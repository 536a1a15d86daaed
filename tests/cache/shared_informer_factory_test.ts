import assert from "node:assert/strict";
import { SharedInformerFactory } from "../../lib/cache/shared_informer_factory.ts";
import type { IndexFunc } from "../../lib/cache/store.ts";
import type { KubeObject, ObjectList, ResourceRef } from "../../lib/resources/object.ts";
import type { ListOptions } from "../../lib/client/types.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";
import { cm, configMaps, page, ScriptedBody, ScriptedListWatcher } from "../watch/_helpers.ts";

const secrets: ResourceRef = {
  group: "",
  version: "v1",
  plural: "secrets",
  kind: "Secret",
  namespaced: true,
};

function factory(lw: ScriptedListWatcher) {
  return new SharedInformerFactory(lw, { clock: new FakeClock(), initialList: "paged" });
}

Deno.test("the same resource and scope share one informer; a different scope gets its own", () => {
  const f = factory(new ScriptedListWatcher());
  const a = f.informer(configMaps);
  const b = f.informer(configMaps);
  const c = f.informer(configMaps, { namespace: "x" });
  const d = f.informer(configMaps, { labelSelector: "app=1" });
  const e = f.informer(secrets);
  assert.equal(a, b);
  assert.equal(new Set([a, c, d, e]).size, 4);
  assert.equal(f.size, 4);
});

Deno.test("start runs one watch per shared informer and waitForSync resolves when all synced", async () => {
  const lw = new ScriptedListWatcher([page([cm("a", "1")], "10"), page([], "20")], [
    new ScriptedBody([], { stall: true }),
    new ScriptedBody([], { stall: true }),
  ]);
  const f = factory(lw);
  const cms1 = f.informer(configMaps);
  const cms2 = f.informer(configMaps);
  f.informer(secrets);
  const ac = new AbortController();
  f.start(ac.signal);
  await f.waitForSync(ac.signal);
  assert.equal(lw.lists.length, 2, "two informers, two lists");
  assert.equal(cms1.store.size, 1);
  assert.equal(cms2.store, cms1.store);
  ac.abort();
  await f.stopped();
  assert.ok(lw.bodies.every((b) => b.cancelled));
});

Deno.test("an informer created after start starts at once", async () => {
  const lw = new ScriptedListWatcher([page([], "10"), page([], "11")], [
    new ScriptedBody([], { stall: true }),
    new ScriptedBody([], { stall: true }),
  ]);
  const f = factory(lw);
  const before = f.informer(secrets);
  await flush();
  assert.equal(lw.lists.length, 0, "nothing runs before start()");
  const ac = new AbortController();
  f.start(ac.signal);
  await flush();
  assert.equal(lw.lists.length, 1, "start() ran the informer created before it");
  const inf = f.informer(configMaps);
  assert.notEqual(inf, before);
  await flush();
  // No second start() and no waitForSync(): creating it was enough to list, watch and sync.
  assert.equal(lw.lists.length, 2, "the informer created after start() listed at once");
  assert.equal(lw.watches.length, 2);
  assert.equal(inf.hasSynced(), true);
  ac.abort();
  await f.stopped();
});

Deno.test("the informer stops when the last reference is released, not before", async () => {
  const lw = new ScriptedListWatcher([page([], "10"), page([], "11")], [
    new ScriptedBody([], { stall: true }),
    new ScriptedBody([], { stall: true }),
  ]);
  const f = factory(lw);
  const ac = new AbortController();
  f.start(ac.signal);
  const a = f.informer(configMaps);
  const b = f.informer(configMaps);
  await f.waitForSync(ac.signal);
  f.release(a);
  assert.equal(f.size, 1);
  assert.equal(lw.bodies[0]!.cancelled, false, "still one user");
  const stopped = f.stopped();
  f.release(b);
  assert.equal(f.size, 0);
  await stopped;
  assert.equal(lw.bodies[0]!.cancelled, true);
  assert.throws(() => f.release(b), RangeError);
  const again = f.informer(configMaps);
  assert.notEqual(again, a, "a released informer is not handed out again");
  await again.ready(ac.signal);
  ac.abort();
  await f.stopped();
});

/** Its list answers only once `finish()` is called, however it is cancelled: a slow shutdown. */
class SlowListWatcher extends ScriptedListWatcher {
  finish = () => {};
  readonly #finished = new Promise<void>((resolve) => this.finish = resolve);

  override async list<T extends KubeObject>(ref: ResourceRef, opts: ListOptions): Promise<ObjectList<T>> {
    await this.#finished;
    return super.list<T>(ref, opts);
  }
}

Deno.test("stopped() also waits for informers that were released and are still shutting down", async () => {
  const lw = new SlowListWatcher([page([], "10")]);
  const f = factory(lw);
  const ac = new AbortController();
  f.start(ac.signal);
  const inf = f.informer(configMaps);
  await flush();
  assert.equal(lw.lists.length, 0, "the list is still in flight");
  f.release(inf);
  assert.equal(f.size, 0);
  let stopped = false;
  const done = f.stopped().then(() => stopped = true);
  await flush();
  assert.equal(stopped, false, "the released informer's run() has not returned yet");
  lw.finish();
  await done;
  assert.equal(lw.watches.length, 0, "it returned without watching");
  ac.abort();
  await f.stopped();
});

Deno.test("waitForSync rejects with the signal's reason on abort", async () => {
  const f = factory(new ScriptedListWatcher());
  f.informer(configMaps);
  const ac = new AbortController();
  const p = f.waitForSync(ac.signal);
  ac.abort(new Error("shutdown"));
  await assert.rejects(p, /shutdown/);
});

Deno.test("indexers asked for after the informer exists and has synced are added and answer at once", async () => {
  const lw = new ScriptedListWatcher([page([cm("a", "1"), cm("b", "2", { data: { owner: "x" } })], "10")], [
    new ScriptedBody([], { stall: true }),
  ]);
  const f = factory(lw);
  const first = f.informer(configMaps);
  const ac = new AbortController();
  f.start(ac.signal);
  await f.waitForSync(ac.signal);
  const byOwner: IndexFunc<KubeObject> = (
    o,
  ) => [String((o as { data?: { owner?: string } }).data?.owner ?? "")];
  const second = f.informer(configMaps, { indexers: { byOwner } });
  assert.equal(second, first);
  assert.deepEqual(second.store.byIndex("byOwner", "x").map((o) => o.metadata.name), ["b"]);
  f.informer(configMaps, { indexers: { byOwner } }); // the same function again: nothing to do
  assert.throws(
    () => f.informer(configMaps, { indexers: { byOwner: () => ["other"] } }),
    (e: Error) => e instanceof TypeError && /indexer "byOwner"/.test(e.message),
    "another function under the same name fails loudly",
  );
  ac.abort();
  await f.stopped();
});
