import assert from "node:assert/strict";
import { Informer, type InformerHandler } from "../../lib/cache/informer.ts";
import type { InformerMetrics } from "../../lib/cache/informer_metrics.ts";
import type { KubeObject, ObjectList, ResourceRef, UnstructuredObject } from "../../lib/resources/object.ts";
import type { ListOptions } from "../../lib/client/types.ts";
import type { Logger } from "../../lib/log/logger.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";
import {
  apiError,
  cm,
  configMaps,
  errorLine,
  line,
  page,
  ScriptedBody,
  ScriptedListWatcher,
} from "../watch/_helpers.ts";
import { deepFreeze } from "./_helpers.ts";
import type { DeepReadonly } from "../../lib/resources/mod.ts";

function recordingLogger(lines: { level: string; msg: string; fields: Record<string, unknown> }[]): Logger {
  const make = (base: Record<string, unknown>): Logger => ({
    debug: (msg, f) => void lines.push({ level: "debug", msg, fields: { ...base, ...f } }),
    info: (msg, f) => void lines.push({ level: "info", msg, fields: { ...base, ...f } }),
    warn: (msg, f) => void lines.push({ level: "warn", msg, fields: { ...base, ...f } }),
    error: (msg, f) => void lines.push({ level: "error", msg, fields: { ...base, ...f } }),
    child: (f) => make({ ...base, ...f }),
  });
  return make({});
}

function recorder() {
  const seen: string[] = [];
  const handler: InformerHandler<KubeObject> = {
    onAdd: (o) => void seen.push(`add:${o.metadata.name}@${o.metadata.resourceVersion}`),
    onUpdate: (a, b) =>
      void seen.push(
        `update:${a.metadata.name}@${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`,
      ),
    onDelete: (o, { finalStateUnknown }) =>
      void seen.push(`delete:${o.metadata.name}${finalStateUnknown ? "?" : ""}`),
  };
  return { seen, handler };
}

const managed = [{ manager: "kubectl", operation: "Update", fieldsV1: { "f:data": { "f:v": {} } } }];

async function until(cond: () => boolean, clock?: FakeClock): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) {
    if (clock) await clock.advance(0);
    else await flush();
  }
  assert.ok(cond(), "condition not reached");
}

Deno.test("handlers get adds after the first sync, then updates and deletes from the watch", async () => {
  const clock = new FakeClock();
  const lw = new ScriptedListWatcher([page([cm("a", "1"), cm("b", "2")], "10")], [
    new ScriptedBody([
      line("MODIFIED", cm("a", "11")),
      line("DELETED", cm("b", "12")),
      line("ADDED", cm("c", "13")),
    ], {
      stall: true,
    }),
  ]);
  const inf = new Informer(lw, configMaps, { clock, initialList: "paged" });
  const { seen, handler } = recorder();
  inf.subscribe(handler);
  const ac = new AbortController();
  const done = inf.run({ signal: ac.signal });
  await inf.ready();
  assert.equal(inf.hasSynced(), true);
  await until(() => seen.length === 5, clock);
  assert.deepEqual(seen, ["add:a@1", "add:b@2", "update:a@1->11", "delete:b", "add:c@13"]);
  assert.deepEqual(inf.store.keys().sort(), ["ns/a", "ns/c"]);
  ac.abort();
  await done;
});

Deno.test("a late subscriber first receives every cached object as an add; unsubscribe stops delivery", async () => {
  const clock = new FakeClock();
  const body = new ScriptedBody([], { stall: true });
  const lw = new ScriptedListWatcher([page([cm("a", "1")], "10")], [body]);
  const inf = new Informer(lw, configMaps, { clock, initialList: "paged" });
  const ac = new AbortController();
  const done = inf.run({ signal: ac.signal });
  await inf.ready();
  const { seen, handler } = recorder();
  const unsubscribe = inf.subscribe(handler);
  assert.deepEqual(seen, ["add:a@1"]);
  unsubscribe();
  ac.abort();
  await done;
  assert.equal(body.cancelled, true);
});

Deno.test("a throwing or rejecting handler is logged and isolated; other handlers and the informer go on", async () => {
  const clock = new FakeClock();
  const logs: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const lw = new ScriptedListWatcher([page([cm("a", "1")], "10")], [
    new ScriptedBody([line("ADDED", cm("b", "11"))], { stall: true }),
  ]);
  const inf = new Informer(lw, configMaps, { clock, initialList: "paged", logger: recordingLogger(logs) });
  inf.subscribe({
    onAdd: () => {
      throw new Error("handler bug");
    },
  });
  inf.subscribe({ onAdd: () => Promise.reject(new Error("async bug")) });
  const { seen, handler } = recorder();
  inf.subscribe(handler);
  const ac = new AbortController();
  const done = inf.run({ signal: ac.signal });
  await until(() => seen.length === 2, clock);
  await flush();
  assert.deepEqual(seen, ["add:a@1", "add:b@11"]);
  const errors = logs.filter((l) => l.level === "error");
  assert.equal(errors.length, 4);
  assert.equal(errors[0]!.fields.resource, "v1/configmaps");
  assert.ok(errors.some((l) => l.fields.error === "async bug"));
  ac.abort();
  await done;
});

Deno.test("resync re-delivers every cached object as onUpdate(obj, obj) on the clock", async () => {
  const clock = new FakeClock();
  const lw = new ScriptedListWatcher([page([cm("a", "1"), cm("b", "2")], "10")], [
    new ScriptedBody([], { stall: true }),
  ]);
  const inf = new Informer(lw, configMaps, {
    clock,
    initialList: "paged",
    resyncPeriodMs: 60_000,
    idleTimeoutMs: 1e9,
  });
  const updates: [DeepReadonly<KubeObject>, DeepReadonly<KubeObject>][] = [];
  inf.subscribe({ onUpdate: (a, b) => void updates.push([a, b]) });
  const ac = new AbortController();
  const done = inf.run({ signal: ac.signal });
  await inf.ready();
  await clock.advance(59_999);
  assert.equal(updates.length, 0);
  await clock.advance(1);
  assert.equal(updates.length, 2);
  assert.ok(updates.every(([a, b]) => a === b));
  await clock.advance(60_000);
  assert.equal(updates.length, 4);
  ac.abort();
  await done;
  assert.equal(clock.pending, 0, "the resync timer is cancelled");
});

Deno.test("managedFields are stripped by default without delete, and kept when disabled", async () => {
  for (const strip of [true, false]) {
    const clock = new FakeClock();
    const original = deepFreeze(
      cm("a", "1", {
        metadata: { name: "a", namespace: "ns", resourceVersion: "1", managedFields: managed },
      }),
    );
    const lw = new ScriptedListWatcher([page([original], "10")], [new ScriptedBody([], { stall: true })]);
    const inf = new Informer(lw, configMaps, { clock, initialList: "paged", stripManagedFields: strip });
    const ac = new AbortController();
    const done = inf.run({ signal: ac.signal });
    await inf.ready();
    const cached = inf.store.get("ns/a")!;
    if (strip) {
      assert.equal("managedFields" in cached.metadata, false);
      assert.equal(cached.metadata.resourceVersion, "1");
      assert.deepEqual(original.metadata.managedFields, managed, "the input object is not mutated");
    } else {
      assert.deepEqual(cached.metadata.managedFields, managed);
    }
    ac.abort();
    await done;
  }
});

Deno.test("a transform runs before caching; a throwing transform is logged and the object cached as is", async () => {
  const clock = new FakeClock();
  const logs: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const lw = new ScriptedListWatcher([page([cm("a", "1"), cm("boom", "2")], "10")], [
    new ScriptedBody([], { stall: true }),
  ]);
  const inf = new Informer<UnstructuredObject>(lw, configMaps as ResourceRef<UnstructuredObject>, {
    clock,
    initialList: "paged",
    logger: recordingLogger(logs),
    transform: (o) => {
      if (o.metadata.name === "boom") throw new Error("bad transform");
      return { ...o, data: undefined, transformed: true };
    },
  });
  const ac = new AbortController();
  const done = inf.run({ signal: ac.signal });
  await inf.ready();
  assert.equal(inf.store.get("ns/a")?.transformed, true);
  assert.equal(inf.store.get("ns/boom")?.transformed, undefined);
  assert.equal(logs.filter((l) => l.level === "error").length, 1);
  ac.abort();
  await done;
});

/** A ScriptedListWatcher whose list applies `transformItem` to each item, as KubeClient does while decoding. */
class TransformingListWatcher extends ScriptedListWatcher {
  /** Items transformed by the time each list call resolved. */
  readonly transformedByList: number[] = [];
  override async list<T extends KubeObject>(ref: ResourceRef, opts: ListOptions): Promise<ObjectList<T>> {
    const list = await super.list<T>(ref, opts);
    const transform = opts.transformItem;
    if (!transform) return list;
    const items = list.items.map((item) => transform(item) as T);
    this.transformedByList.push(items.length);
    return { ...list, items };
  }
}

Deno.test("a paged list is transformed item by item by a client that can, once per object; else by the informer", async () => {
  const managedFields = [{ manager: "kubectl", operation: "Update", fieldsV1: { "f:data": {} } }];
  const withFields = (name: string, rv: string) => {
    const o = cm(name, rv);
    return { ...o, metadata: { ...o.metadata, managedFields } };
  };
  for (const honours of [true, false]) {
    const clock = new FakeClock();
    const calls: string[] = [];
    const answers = [
      page([withFields("a", "1"), withFields("b", "2")], "10", "more"),
      page([withFields("c", "3")], "10"),
    ];
    const body = [new ScriptedBody([line("ADDED", withFields("d", "11"))], { stall: true })];
    const lw = honours ? new TransformingListWatcher(answers, body) : new ScriptedListWatcher(answers, body);
    const inf = new Informer<UnstructuredObject>(lw, configMaps as ResourceRef<UnstructuredObject>, {
      clock,
      initialList: "paged",
      transform: (o) => {
        calls.push(o.metadata.name ?? "");
        assert.equal(o.metadata.managedFields, undefined, "stripped before the transform");
        return { ...o, transformed: true };
      },
    });
    const ac = new AbortController();
    const done = inf.run({ signal: ac.signal });
    await inf.ready();
    await until(() => inf.store.get("ns/d") !== undefined, clock);
    assert.deepEqual(calls, ["a", "b", "c", "d"], `honours transformItem: ${honours}`);
    for (const name of ["a", "b", "c", "d"]) {
      const o = inf.store.get(`ns/${name}`)!;
      assert.equal(o.transformed, true);
      assert.equal(o.metadata.managedFields, undefined);
    }
    if (lw instanceof TransformingListWatcher) {
      assert.deepEqual(lw.transformedByList, [2, 1], "each page transformed inside the list call");
    }
    ac.abort();
    await done;
  }
});

Deno.test("watch errors are retried with backoff forever, counted in metrics, and run() still resolves on abort", async () => {
  const clock = new FakeClock();
  const counts: Record<string, number> = {};
  const bump = (k: string) => () => void (counts[k] = (counts[k] ?? 0) + 1);
  const metrics: InformerMetrics = {
    relist: bump("relist"),
    watchRestart: bump("watchRestart"),
    decodeError: bump("decodeError"),
    eventReceived: bump("eventReceived"),
    lastEventTimestamp: bump("lastEventTimestamp"),
    watchError: bump("watchError"),
  };
  const lw = new ScriptedListWatcher([page([], "10"), page([cm("z", "30")], "30")], [
    apiError(500, "InternalError"),
    new ScriptedBody(["{bad json\n"]),
    new ScriptedBody([line("ADDED", cm("a", "11")), errorLine(410, "Expired")]),
    new ScriptedBody([], { stall: true }),
  ]);
  const inf = new Informer(lw, configMaps, { clock, initialList: "paged", metrics, random: () => 1 });
  const ac = new AbortController();
  const done = inf.run({ signal: ac.signal });
  await inf.ready();
  await until(() => counts.watchError === 1, clock);
  await clock.advance(799);
  assert.equal(lw.watches.length, 1, "still backing off");
  await clock.advance(1); // first backoff: 800 ms
  await until(() => counts.watchError === 2, clock);
  await clock.advance(1600); // second backoff
  await until(() => inf.store.get("ns/z") !== undefined, clock);
  assert.equal(counts.watchError, 2);
  assert.equal(counts.decodeError, 1);
  assert.equal(counts.relist, 2);
  assert.equal(counts.watchRestart, 4);
  assert.ok((counts.eventReceived ?? 0) >= 2);
  assert.equal(inf.store.get("ns/a"), undefined, "a vanished across the relist");
  ac.abort();
  await done;
});

Deno.test("changes() is an async iterable of store changes that ends on abort", async () => {
  const clock = new FakeClock();
  const lw = new ScriptedListWatcher([page([cm("a", "1")], "10")], [
    new ScriptedBody([line("DELETED", cm("a", "11"))], { stall: true }),
  ]);
  const inf = new Informer(lw, configMaps, { clock, initialList: "paged" });
  const ac = new AbortController();
  const iter = inf.changes({ signal: ac.signal })[Symbol.asyncIterator]();
  const done = inf.run({ signal: ac.signal });
  const first = await iter.next();
  const second = await iter.next();
  assert.equal(first.value?.type, "add");
  assert.ok(second.value?.type === "delete" && second.value.finalStateUnknown === false);
  const third = iter.next();
  ac.abort();
  assert.equal((await third).done, true);
  await done;
});

Deno.test("ready(signal) rejects with the reason when aborted before sync", async () => {
  const inf = new Informer(new ScriptedListWatcher(), configMaps);
  const ac = new AbortController();
  const p = inf.ready(ac.signal);
  ac.abort(new Error("gave up"));
  await assert.rejects(p, /gave up/);
});
