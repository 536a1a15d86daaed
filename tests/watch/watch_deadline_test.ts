// kube-apiserver ends every watch at its timeoutSeconds. A watch still open well after that has a
// connection that stalled without closing (a proxy that stopped forwarding, a half-open TCP connection):
// it is given up at timeoutSeconds + idleMarginMs even if events arrived shortly before, so a stall blinds
// the cache for at most max timeoutSeconds + margin (35 s by default), not 90 s of silence after the
// last byte.
import assert from "node:assert/strict";
import { WatchDeadlineError } from "../../lib/watch/watch_deadline_error.ts";
import { watcher, type WatcherOptions } from "../../lib/watch/watcher.ts";
import type { WatcherEvent } from "../../lib/watch/watcher_event.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { bookmark, cm, configMaps, line, PushBody, PushListWatcher, settledAfter, take } from "./_helpers.ts";

function start(lw: PushListWatcher, clock: FakeClock, options: WatcherOptions = {}) {
  return watcher(lw, configMaps, { initialList: "paged", random: () => 0.5, clock, ...options });
}

/** A streaming-list watcher whose first watch has delivered `lines` (ending with the end bookmark). */
async function startStreaming(lw: PushListWatcher, clock: FakeClock, first: PushBody, lines: string[]) {
  const it = start(lw, clock, { initialList: "stream" });
  const init = it.next();
  await clock.waitForTimers(1);
  for (const text of lines) await first.push(text);
  await init;
  return it;
}

Deno.test("a watch still open 5 s after its timeoutSeconds is given up, though events came shortly before", async () => {
  const clock = new FakeClock();
  const first = new PushBody();
  const second = new PushBody();
  const lw = new PushListWatcher("10", [first, second]);
  const it = start(lw, clock);
  await take(it, 2); // init, initDone
  const opened = clock.now(); // the fake clock stands still until advanced: the watch opens now
  for (const [at, rv] of [[10_000, "11"], [20_000, "12"], [25_000, "13"]] as const) {
    const pending = it.next();
    await clock.waitForTimers(1);
    await clock.advance(opened + at - clock.now());
    await first.push(line("ADDED", cm(`o${rv}`, rv)));
    assert.equal((await pending).value?.type, "apply");
  }
  assert.equal(lw.watches[0]!.timeoutSeconds, 22, "drawn from [15, 30)");
  // The server would have ended this watch at 22 s; the connection forwards nothing any more.
  const pending = it.next();
  assert.equal(
    await settledAfter(clock, pending, opened + 26_999 - clock.now()),
    false,
    "not before 22 s + 5 s",
  );
  assert.equal(await settledAfter(clock, pending, 1), true, "at 22 s + 5 s, 2 s after the last event");
  const event = (await pending).value as WatcherEvent;
  assert.ok(event.type === "error" && event.error instanceof WatchDeadlineError, String(event.type));
  assert.equal(event.error.openMs, 27_000);
  assert.equal(first.cancelled, true, "the stalled connection is closed");
  await second.push(line("ADDED", cm("b", "14")));
  assert.equal((await take(it, 1))[0]?.type, "apply");
  assert.deepEqual(lw.watches.map((w) => w.resourceVersion), ["10", "13"], "resumed from the last event");
  await it.return();
  assert.equal(clock.pending, 0, "no timer left behind");
});

Deno.test("past the deadline, an end already received is read, not cut: a busy consumer loses nothing", async () => {
  const clock = new FakeClock();
  const body = new PushBody();
  const lw = new PushListWatcher("10", [body]);
  const it = start(lw, clock);
  await take(it, 2);
  await body.push(line("ADDED", cm("a", "11")));
  await body.push(line("ADDED", cm("b", "12")));
  body.close();
  assert.equal((await take(it, 1))[0]?.type, "apply");
  await clock.advance(120_000); // the consumer is busy far past the deadline; nobody reads
  const [next] = await take(it, 1);
  assert.ok(next?.type === "apply" && next.object.metadata.name === "b");
  // The clean end is a normal end: the next watch starts from the last RV, with no error in between.
  const second = new PushBody();
  lw.pushBodies.push(second);
  const after = it.next();
  await clock.waitForTimers(1);
  await second.push(line("ADDED", cm("c", "13")));
  assert.equal((await after).value?.type, "apply");
  assert.deepEqual(lw.watches.map((w) => w.resourceVersion), ["10", "12"]);
  await it.return();
});

Deno.test("the streaming list's watch gets [300, 600) for its initial state, then the client ends it after [15, 30)", async () => {
  const clock = new FakeClock();
  const first = new PushBody();
  const second = new PushBody();
  const lw = new PushListWatcher("10", [first, second]);
  const it = await startStreaming(lw, clock, first, [line("ADDED", cm("a", "5")), bookmark("8", true)]);
  await take(it, 2); // initApply, initDone
  assert.equal(lw.watches[0]!.timeoutSeconds, 450, "the server must not cut a large initial state");
  assert.equal(lw.watches[0]!.sendInitialEvents, true);
  // The connection now stalls: the server would keep this watch for 450 s, the heartbeat wait 90 s.
  const pending = it.next();
  await clock.waitForTimers(1);
  await clock.advance(21_999);
  assert.equal(lw.watches.length, 1);
  await clock.advance(1);
  await clock.waitForTimers(1); // the next watch is open and waiting for bytes
  assert.equal(first.cancelled, true, "ended 22 s after the initial state, by the client");
  assert.deepEqual(lw.watches[1], { allowWatchBookmarks: true, timeoutSeconds: 22, resourceVersion: "8" });
  await second.push(line("ADDED", cm("b", "9")));
  const next = (await pending).value as WatcherEvent;
  assert.ok(next.type === "apply" && next.object.metadata.name === "b", "a clean end: no error event");
  await it.return();
});

Deno.test("the client ends the streaming list's watch on time even while events keep coming, losing none", async () => {
  const clock = new FakeClock();
  const first = new PushBody();
  const second = new PushBody();
  const lw = new PushListWatcher("10", [first, second]);
  const it = await startStreaming(lw, clock, first, [bookmark("10", true)]);
  await take(it, 1); // initDone
  const ended = clock.now();
  let rv = 10;
  const readNext = async (waitMs: number) => {
    const pending = it.next();
    await clock.waitForTimers(1);
    await clock.advance(waitMs);
    rv++;
    await first.push(line("ADDED", cm(`o${rv}`, String(rv))));
    const got = (await pending).value as WatcherEvent;
    assert.ok(got.type === "apply" && got.object.metadata.resourceVersion === String(rv));
  };
  while (clock.now() - ended < 21_500) await readNext(500); // an event every 500 ms, never a pause
  await readNext(400); // read at 21.9 s
  await clock.advance(200); // the consumer is busy past 22 s; an event arrives meanwhile
  await first.push(line("ADDED", cm("unread", String(rv + 1))));
  const pending = it.next();
  await clock.waitForTimers(1);
  assert.equal(first.cancelled, true, "ended at 22 s though bytes kept coming");
  assert.deepEqual(lw.watches[1], {
    allowWatchBookmarks: true,
    timeoutSeconds: 22,
    resourceVersion: String(rv),
  });
  await second.push(line("ADDED", cm("unread", String(rv + 1)))); // the server sends it again
  const again = (await pending).value as WatcherEvent;
  assert.ok(again.type === "apply" && again.object.metadata.name === "unread");
  await it.return();
});
