// Read-your-writes for controllers on FakeApi and real informers: the next reconcile of a key reads what the
// last one wrote however late the watch is, and a reconcile's own writes do not enqueue its key again in
// its own controller (they do in another controller sharing the informer), whether the write's answer or
// its watch event comes first. Writes per new object are exactly the minimum.
import assert from "node:assert/strict";
import { Controller, type ControllerOptions } from "../../lib/controller/mod.ts";
import { CONFIG_MAPS, type ConfigMap } from "../../lib/resources/mod.ts";
import { settle, world } from "../_util/ryw_world.ts";

/** A controller of ConfigMaps whose reconcile counts calls and runs `body`. */
function counting(
  name: string,
  calls: string[],
  body: (key: string) => Promise<void> = () => Promise.resolve(),
): ControllerOptions<ConfigMap> {
  return {
    name,
    for: CONFIG_MAPS,
    reconcile: async (_r, ctx) => {
      calls.push(ctx.key);
      await body(ctx.key);
    },
  };
}

Deno.test("the next reconcile of a key, triggered before the watch echo, reads what the last one wrote", async () => {
  await using w = world("answer first");
  w.api.seed(CONFIG_MAPS, { metadata: { name: "a", namespace: "ns" }, data: { n: "0" } });
  const seen: string[] = [];
  const informer = w.factory.informer<ConfigMap>(CONFIG_MAPS);
  const c = new Controller<ConfigMap>(w.factory, {
    ...counting("counter", [], async (key) => {
      const n = Number(informer.store.get(key)?.data?.n ?? "0");
      seen.push(String(n));
      if (n < 3) {
        await w.api.patch(CONFIG_MAPS, "a", { data: { n: String(n + 1) } }, {
          type: "merge",
          namespace: "ns",
        });
      }
    }),
  });
  w.run(c as unknown as Controller<never>);
  await informer.ready();
  await settle(() => seen);
  w.gate.close(); // the watch is late from here on: only read-your-writes can show reconcile 2 the write
  for (let i = 0; i < 3; i++) {
    c.enqueue({ namespace: "ns", name: "a" });
    await settle(() => seen);
  }
  assert.deepEqual(seen, ["0", "1", "2", "3"]);
  assert.equal(w.api.object(CONFIG_MAPS, "a", "ns")?.data?.n, "3");
});

for (const order of ["answer first", "echo first"] as const) {
  Deno.test(`${order}: a reconcile's own write does not enqueue it again; another controller sees it`, async () => {
    await using w = world(order);
    const informer = w.factory.informer<ConfigMap>(CONFIG_MAPS);
    w.watchStore("configmaps", (key) => informer.store.get(key)?.metadata.resourceVersion);
    w.api.seed(CONFIG_MAPS, { metadata: { name: "a", namespace: "ns" } });
    const writer: string[] = [];
    const other: string[] = [];
    const writes = new Controller(
      w.factory,
      counting("writer", writer, async () => {
        if (informer.store.get("ns/a")?.metadata.labels?.done) return;
        await w.api.patch(CONFIG_MAPS, "a", { metadata: { labels: { done: "yes" } } }, {
          type: "merge",
          namespace: "ns",
        });
      }),
    );
    const reads = new Controller(w.factory, counting("reader", other));
    if (order === "answer first") w.gate.close();
    w.run(writes as unknown as Controller<never>, reads as unknown as Controller<never>);
    await settle(() => [writer, other]);
    w.gate.open(); // whatever the watch still had to say: the echoes
    await settle(() => [writer, other]);
    assert.deepEqual(writer, ["ns/a"], "one reconcile: its own write did not bring it back");
    assert.deepEqual(other, ["ns/a", "ns/a"], "the other controller saw the change");
    assert.deepEqual(w.writes(), ["patch configmaps/ns/a"]);
    assert.equal(w.echoesFirst(), order === "echo first" ? 1 : 0, "the order under test happened");
  });
}

Deno.test("a change someone else made, merged into our write's answer, enqueues the writer again", async () => {
  await using w = world("answer first");
  const informer = w.factory.informer<ConfigMap>(CONFIG_MAPS);
  w.api.seed(CONFIG_MAPS, { metadata: { name: "a", namespace: "ns" }, data: { spec: "1" } });
  const calls: string[] = [];
  let edited = false;
  const c = new Controller(
    w.factory,
    counting("writer", calls, async () => {
      if (!edited) {
        edited = true;
        w.gate.close();
        // Someone edits it; our cache has not seen that when we write a label without precondition.
        w.api.seed(CONFIG_MAPS, { metadata: { name: "a", namespace: "ns" }, data: { spec: "2" } });
        await w.api.patch(CONFIG_MAPS, "a", { metadata: { labels: { seen: "1" } } }, {
          type: "merge",
          namespace: "ns",
        });
      }
    }),
  );
  w.run(c as unknown as Controller<never>);
  await settle(() => calls);
  assert.equal(informer.store.get("ns/a")?.data?.spec, "2");
  assert.deepEqual(calls, ["ns/a", "ns/a"], "reconciled again for the edit merged into our answer");
});

Deno.test("a write to another key of the same kind still enqueues that key in the writing controller", async () => {
  await using w = world("answer first");
  w.api.seed(CONFIG_MAPS, { metadata: { name: "a", namespace: "ns" } }, {
    metadata: { name: "b", namespace: "ns" },
  });
  const calls: string[] = [];
  const c = new Controller(
    w.factory,
    counting("writer", calls, async (key) => {
      if (key === "ns/a" && calls.length === 3) {
        await w.api.patch(CONFIG_MAPS, "b", { data: { from: "a" } }, { type: "merge", namespace: "ns" });
      }
    }),
  );
  w.gate.close();
  w.run(c as unknown as Controller<never>);
  await settle(() => calls);
  c.enqueue({ namespace: "ns", name: "a" }); // its third call writes b: b's change is not a's own
  await settle(() => calls);
  assert.deepEqual(calls, ["ns/a", "ns/b", "ns/a", "ns/b"]);
});
