import assert from "node:assert/strict";
import { Backoff, withBackoff } from "../../lib/watch/backoff.ts";
import { WatchDecodeError } from "../../lib/watch/watch_decode_error.ts";
import { WatchEndedEarlyError } from "../../lib/watch/watch_ended_early_error.ts";
import { WatchIdleTimeoutError } from "../../lib/watch/watch_idle_timeout_error.ts";
import { watcher, type WatcherOptions } from "../../lib/watch/watcher.ts";
import type { WatcherEvent } from "../../lib/watch/watcher_event.ts";
import type { ListWatcher } from "../../lib/watch/list_watcher.ts";
import type { KubeObject, ObjectList, ResourceRef } from "../../lib/resources/object.ts";
import type { ListOptions } from "../../lib/client/types.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";
import {
  apiError,
  bookmark,
  cm,
  configMaps,
  errorLine,
  line,
  page,
  ScriptedBody,
  ScriptedListWatcher,
  take,
} from "./_helpers.ts";

function start(lw: ScriptedListWatcher, options: WatcherOptions = {}) {
  const clock = options.clock ?? new FakeClock();
  return watcher(lw, configMaps, { initialList: "paged", random: () => 0.5, clock, ...options });
}
const brief = (e: WatcherEvent) =>
  e.type === "initApply" || e.type === "apply" || e.type === "delete"
    ? `${e.type}:${e.object.metadata.name}@${e.object.metadata.resourceVersion}`
    : e.type === "initDone"
    ? `initDone@${e.resourceVersion}`
    : e.type === "error"
    ? `error:${e.error.name}`
    : e.type;

Deno.test("the initial list is paged by default (limit 5000, no RV, then continue) and the watch starts from the list RV", async () => {
  const lw = new ScriptedListWatcher(
    [page([cm("a", "1"), cm("b", "2")], "10", "c1"), page([cm("c", "3")], "10")],
    [new ScriptedBody([line("ADDED", cm("d", "11"))])],
  );
  const it = watcher(lw, configMaps, { random: () => 0.5, clock: new FakeClock() }); // no initialList
  const got = await take(it, 6);
  assert.deepEqual(got.map(brief), [
    "init",
    "initApply:a@1",
    "initApply:b@2",
    "initApply:c@3",
    "initDone@10",
    "apply:d@11",
  ]);
  assert.deepEqual(lw.lists, [{ limit: 5000 }, { limit: 5000, continue: "c1" }]);
  assert.deepEqual(lw.watches, [{ allowWatchBookmarks: true, timeoutSeconds: 22, resourceVersion: "10" }]);
  await it.return();
  assert.equal(lw.bodies[0]!.cancelled, true, "return() closes the open stream");
});

Deno.test("the next page is requested while the previous one is still being handed out", async () => {
  const lw = new ScriptedListWatcher(
    [page([cm("a", "1"), cm("b", "2")], "10", "c1"), page([cm("c", "3")], "10")],
    [new ScriptedBody([], { stall: true })],
  );
  const it = start(lw);
  assert.deepEqual((await take(it, 2)).map(brief), ["init", "initApply:a@1"]);
  assert.deepEqual(lw.lists, [{ limit: 5000 }, { limit: 5000, continue: "c1" }]);
  assert.deepEqual((await take(it, 3)).map(brief), ["initApply:b@2", "initApply:c@3", "initDone@10"]);
  assert.equal(lw.lists.length, 2, "the prefetched page is used, not asked for again");
  await it.return();
});

Deno.test("leaving the iteration cancels a prefetched page that is still in flight", async () => {
  let prefetchSignal: AbortSignal | undefined;
  const lw: ListWatcher = {
    list<T extends KubeObject>(_ref: ResourceRef, opts: ListOptions): Promise<ObjectList<T>> {
      if (!opts.continue) return Promise.resolve(page([cm("a", "1")], "10", "c1") as ObjectList<T>);
      prefetchSignal = opts.signal;
      return new Promise((_resolve, reject) => {
        opts.signal?.addEventListener("abort", () => reject(opts.signal?.reason), { once: true });
      });
    },
    watch: () => Promise.reject(new Error("not reached")),
  };
  const it = start(lw as ScriptedListWatcher);
  assert.deepEqual((await take(it, 2)).map(brief), ["init", "initApply:a@1"]);
  assert.equal(prefetchSignal?.aborted, false);
  await it.return();
  assert.equal(prefetchSignal?.aborted, true);
});

Deno.test("selectors and namespace are passed to list and watch; timeoutSeconds is drawn from [15, 30)", async () => {
  const lw = new ScriptedListWatcher([page([], "1")], [
    new ScriptedBody([bookmark("1")]),
    new ScriptedBody([line("ADDED", cm("a", "2"))], { stall: true }),
  ]);
  const randoms = [0, 0.999999];
  const it = watcher(lw, configMaps, {
    initialList: "paged",
    namespace: "ns1",
    labelSelector: "app=x",
    fieldSelector: "metadata.name=y",
    random: () => randoms.shift() ?? 0,
    clock: new FakeClock(),
  });
  assert.equal((await take(it, 3)).length, 3);
  await it.return();
  assert.deepEqual(lw.lists[0], {
    namespace: "ns1",
    labelSelector: "app=x",
    fieldSelector: "metadata.name=y",
    limit: 5000,
  });
  assert.equal(lw.watches[0]!.namespace, "ns1");
  assert.equal(lw.watches[0]!.timeoutSeconds, 15);
  assert.equal(lw.watches[1]!.timeoutSeconds, 29);
});

Deno.test("a 410 answer to the watch leads to a relist with resourceVersion unset", async () => {
  const lw = new ScriptedListWatcher(
    [page([cm("a", "1")], "10"), page([cm("a", "20")], "20")],
    [apiError(410, "Gone"), new ScriptedBody([], { stall: true })],
  );
  const it = start(lw);
  const got = await take(it, 6);
  assert.deepEqual(got.map(brief), [
    "init",
    "initApply:a@1",
    "initDone@10",
    "init",
    "initApply:a@20",
    "initDone@20",
  ]);
  assert.deepEqual(lw.lists[1], { limit: 5000 });
  await it.return();
});

Deno.test("an ERROR 410 event leads to a relist and closes the old stream", async () => {
  const lw = new ScriptedListWatcher(
    [page([], "10"), page([cm("x", "30")], "30")],
    [new ScriptedBody([line("ADDED", cm("a", "11")), errorLine(410, "Expired", "too old resource version")])],
  );
  const it = start(lw);
  const got = await take(it, 6);
  assert.deepEqual(got.map(brief), [
    "init",
    "initDone@10",
    "apply:a@11",
    "init",
    "initApply:x@30",
    "initDone@30",
  ]);
  assert.equal(lw.bodies[0]!.cancelled, true);
  assert.deepEqual(lw.lists[1], { limit: 5000 });
  await it.return();
});

Deno.test("a clean end re-watches from the newest RV, bookmarks included", async () => {
  const lw = new ScriptedListWatcher([page([], "10")], [
    new ScriptedBody([line("ADDED", cm("a", "11")), bookmark("15")]),
    new ScriptedBody([line("MODIFIED", cm("a", "16"))]),
  ]);
  const it = start(lw);
  const got = await take(it, 4);
  assert.deepEqual(got.map(brief), ["init", "initDone@10", "apply:a@11", "apply:a@16"]);
  assert.deepEqual(lw.watches.map((w) => w.resourceVersion), ["10", "15"]);
  await it.return();
});

Deno.test("a watch answered 200 and closed at once is an error, so withBackoff spaces the reconnects", async () => {
  const clock = new FakeClock();
  const lw = new ScriptedListWatcher([page([], "10")], [
    new ScriptedBody([]),
    new ScriptedBody([]),
    new ScriptedBody([line("ADDED", cm("a", "11"))], { stall: true }),
  ]);
  const backoff = new Backoff({ clock, random: () => 1 }); // delays of exactly 800 ms, then 1600 ms
  const it = withBackoff(start(lw, { clock }), { clock, backoff });
  const all = take(it, 5);
  await flush();
  assert.equal(lw.watches.length, 1, "the first early close is followed by a sleep, not a reconnect");
  await clock.advance(799);
  assert.equal(lw.watches.length, 1);
  await clock.advance(1);
  assert.equal(lw.watches.length, 2, "reconnects after the first backoff delay");
  await clock.advance(1_599);
  assert.equal(lw.watches.length, 2, "the second delay is longer");
  await clock.advance(1);
  assert.equal(lw.watches.length, 3);
  const got = await all;
  assert.deepEqual(got.map(brief), [
    "init",
    "initDone@10",
    "error:WatchEndedEarlyError",
    "error:WatchEndedEarlyError",
    "apply:a@11",
  ]);
  assert.ok(got[2]?.type === "error" && got[2].error instanceof WatchEndedEarlyError);
  assert.deepEqual(lw.watches.map((w) => w.resourceVersion), ["10", "10", "10"], "no relist, same RV");
  await it.return();
});

Deno.test("a decode error is yielded after the good events before it and the watch resumes from the last good RV", async () => {
  const lw = new ScriptedListWatcher([page([], "10")], [
    new ScriptedBody([
      line("ADDED", cm("a", "11")) + line("ADDED", cm("b", "12")) + "{garbage\n" +
      line("ADDED", cm("c", "13")),
    ]),
    new ScriptedBody([line("ADDED", cm("c", "13"))]),
  ]);
  const it = start(lw);
  const got = await take(it, 6);
  assert.deepEqual(got.map(brief), [
    "init",
    "initDone@10",
    "apply:a@11",
    "apply:b@12",
    "error:WatchDecodeError",
    "apply:c@13",
  ]);
  const err = got[4]!;
  assert.ok(err.type === "error" && err.error instanceof WatchDecodeError && err.error.lineNumber === 3);
  assert.deepEqual(lw.watches.map((w) => w.resourceVersion), ["10", "12"]);
  assert.equal(lw.bodies[0]!.cancelled, true);
  await it.return();
});

Deno.test("a network error while reading is yielded and the watch resumes from the last RV", async () => {
  const lw = new ScriptedListWatcher([page([], "10")], [
    new ScriptedBody([line("ADDED", cm("a", "11"))], { failWith: new TypeError("connection reset") }),
    new TypeError("connection refused"),
    new ScriptedBody([line("ADDED", cm("b", "12"))]),
  ]);
  const it = start(lw);
  const got = await take(it, 6);
  assert.deepEqual(got.map(brief), [
    "init",
    "initDone@10",
    "apply:a@11",
    "error:TypeError",
    "error:TypeError",
    "apply:b@12",
  ]);
  assert.deepEqual(lw.watches.map((w) => w.resourceVersion), ["10", "11", "11"]);
  await it.return();
});

Deno.test("a silent watch is abandoned after the idle timeout and resumed from the last RV", async () => {
  const clock = new FakeClock();
  const lw = new ScriptedListWatcher([page([], "10")], [
    new ScriptedBody([line("ADDED", cm("a", "11"))], { stall: true }),
    new ScriptedBody([line("ADDED", cm("b", "12"))], { stall: true }),
  ]);
  const it = start(lw, { clock, timeoutSecondsRange: [300, 600], idleMarginMs: 5_000, heartbeatMs: 0 });
  assert.deepEqual((await take(it, 3)).map(brief), ["init", "initDone@10", "apply:a@11"]);
  const pending = it.next();
  await clock.advance(450_000 + 4_999);
  let settled = false;
  pending.then(() => settled = true);
  await clock.advance(0);
  assert.equal(settled, false, "not before timeoutSeconds + margin");
  await clock.advance(1);
  const r = await pending;
  assert.ok(!r.done && r.value.type === "error" && r.value.error instanceof WatchIdleTimeoutError);
  assert.equal(lw.bodies[0]!.cancelled, true);
  assert.deepEqual((await take(it, 1)).map(brief), ["apply:b@12"]);
  assert.deepEqual(lw.watches.map((w) => w.resourceVersion), ["10", "11"]);
  await it.return();
  assert.equal(lw.bodies[1]!.cancelled, true, "leaving the iteration closes the stream");
  assert.equal(clock.pending, 0, "no timer left behind");
});

Deno.test("the idle timer runs only while waiting for bytes, not while the consumer is busy", async () => {
  const clock = new FakeClock();
  const lw = new ScriptedListWatcher([page([], "10")], [
    new ScriptedBody([line("ADDED", cm("a", "11")), line("ADDED", cm("b", "12"))], { stall: true }),
  ]);
  const it = start(lw, { clock, idleTimeoutMs: 1_000 });
  await take(it, 3);
  await clock.advance(10_000); // consumer "busy": nobody is reading
  assert.deepEqual((await take(it, 1)).map(brief), ["apply:b@12"]);
  await it.return();
});

Deno.test("the streaming list path asks for sendInitialEvents and ends the init at the end bookmark", async () => {
  const lw = new ScriptedListWatcher([], [
    new ScriptedBody([
      line("ADDED", cm("a", "5")),
      line("ADDED", cm("b", "6")),
      bookmark("8", true),
      line("MODIFIED", cm("a", "9")),
    ], { stall: true }),
  ]);
  const it = start(lw, { initialList: "auto" });
  const got = await take(it, 5);
  assert.deepEqual(got.map(brief), ["init", "initApply:a@5", "initApply:b@6", "initDone@8", "apply:a@9"]);
  assert.deepEqual(lw.watches[0], {
    allowWatchBookmarks: true,
    timeoutSeconds: 450,
    sendInitialEvents: true,
    resourceVersionMatch: "NotOlderThan",
  });
  assert.equal(lw.lists.length, 0);
  await it.return();
});

Deno.test("auto falls back to paged lists when the server rejects streaming, and remembers it", async () => {
  const lw = new ScriptedListWatcher(
    [page([cm("a", "1")], "10"), page([], "20")],
    [
      apiError(
        422,
        "Invalid",
        "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch",
      ),
      new ScriptedBody([errorLine(410, "Expired")]),
      new ScriptedBody([], { stall: true }),
    ],
  );
  const it = start(lw, { initialList: "auto" });
  const got = await take(it, 5);
  assert.deepEqual(got.map(brief), ["init", "initApply:a@1", "initDone@10", "init", "initDone@20"]);
  assert.equal(lw.watches[0]!.sendInitialEvents, true);
  assert.equal(lw.watches[1]!.sendInitialEvents, undefined);
  assert.deepEqual(lw.lists, [{ limit: 5000 }, { limit: 5000 }]);
  await it.return();
});

Deno.test("aborting the signal ends the iteration without error and closes the stream", async () => {
  const lw = new ScriptedListWatcher([page([], "10")], [new ScriptedBody([], { stall: true })]);
  const ac = new AbortController();
  const it = start(lw, { signal: ac.signal });
  await take(it, 2);
  const pending = it.next();
  await Promise.resolve();
  ac.abort(new Error("shutdown"));
  assert.deepEqual(await pending, { done: true, value: undefined });
  assert.equal(lw.bodies[0]!.cancelled, true);
});

Deno.test("aborting ends the iteration only once the connection has finished closing", async () => {
  let finishClosing = () => {};
  const closing = new Promise<void>((resolve) => finishClosing = resolve);
  const lw = new ScriptedListWatcher([page([], "10")], [
    new ScriptedBody([], { stall: true, cancelUntil: closing }),
  ]);
  const ac = new AbortController();
  const it = start(lw, { signal: ac.signal });
  await take(it, 2);
  let settled = false;
  const pending = it.next().then((r) => (settled = true, r));
  await Promise.resolve();
  ac.abort(new Error("shutdown"));
  await flush();
  assert.equal(lw.bodies[0]!.cancelled, true, "closing has started");
  assert.equal(settled, false, "still closing");
  finishClosing();
  assert.deepEqual(await pending, { done: true, value: undefined });
});

Deno.test("breaking out of for await closes the watch", async () => {
  const lw = new ScriptedListWatcher([page([], "10")], [
    new ScriptedBody([line("ADDED", cm("a", "11"))], { stall: true }),
  ]);
  for await (const e of start(lw)) if (e.type === "apply") break;
  assert.equal(lw.bodies[0]!.cancelled, true);
});

Deno.test("bad options are RangeErrors", async () => {
  const lw = new ScriptedListWatcher();
  await assert.rejects(() => start(lw, { pageSize: 0 }).next(), RangeError);
  await assert.rejects(() => start(lw, { timeoutSecondsRange: [600, 300] }).next(), RangeError);
});
