// A watch whose connection stalls without closing (a half-open TCP connection, a proxy that lost its
// state) must not blind the cache for the watch's whole timeoutSeconds: while the server sends
// periodic bookmarks (kube-apiserver: one a minute), 90 s of silence replace the connection.
import assert from "node:assert/strict";
import { WatchIdleTimeoutError } from "../../lib/watch/watch_idle_timeout_error.ts";
import { watcher, type WatcherOptions } from "../../lib/watch/watcher.ts";
import type { WatcherEvent } from "../../lib/watch/watcher_event.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import {
  bookmark,
  cm,
  configMaps,
  line,
  PushBody,
  PushListWatcher,
  type ScriptedListWatcher,
  settledAfter,
  take,
} from "./_helpers.ts";
import { type Line, memoryLogger } from "../controller/memory_logger.ts";

/** Long watches (as a streaming list's, or a user's own range), where the heartbeat is what ends a stall. */
function start(lw: ScriptedListWatcher, clock: FakeClock, options: WatcherOptions = {}) {
  return watcher(lw, configMaps, {
    initialList: "paged",
    random: () => 0.5,
    clock,
    timeoutSecondsRange: [300, 600],
    idleMarginMs: 30_000,
    ...options,
  });
}

const isIdle = (e: WatcherEvent | undefined) =>
  e?.type === "error" && e.error instanceof WatchIdleTimeoutError;

Deno.test("after a periodic bookmark, a watch silent for 90 s is replaced (not after timeoutSeconds + 30 s)", async () => {
  const clock = new FakeClock();
  const first = new PushBody();
  const second = new PushBody();
  const lw = new PushListWatcher("10", [first, second]);
  const it = start(lw, clock);
  assert.equal((await take(it, 2)).length, 2); // init, initDone
  await first.push(line("ADDED", cm("a", "11")));
  assert.equal((await take(it, 1))[0]?.type, "apply");
  const pending = it.next();
  await clock.waitForTimers(1);
  await clock.advance(60_000);
  await first.push(bookmark("12")); // the server's minute heartbeat
  assert.equal(await settledAfter(clock, pending, 89_999), false, "not before 90 s of silence");
  assert.equal(await settledAfter(clock, pending, 1), true);
  assert.ok(isIdle((await pending).value as WatcherEvent));
  await second.push(line("ADDED", cm("b", "13")));
  assert.equal((await take(it, 1))[0]?.type, "apply");
  assert.deepEqual(lw.watches.map((w) => w.resourceVersion), ["10", "12"], "resumed from the bookmark");
  await it.return();
});

Deno.test("a resource without periodic bookmarks gets the long bound after two silent periods", async () => {
  const clock = new FakeClock();
  const lines: Line[] = [];
  const logger = memoryLogger(lines);
  const lw = new PushListWatcher("10", []);
  const it = start(lw, clock, { logger });
  await take(it, 2);
  for (const round of [1, 2]) {
    const pending = it.next();
    assert.equal(await settledAfter(clock, pending, 90_000), true, `silent period ${round} ends at 90 s`);
    assert.ok(isIdle((await pending).value as WatcherEvent));
  }
  assert.ok(lines.some((l) => /No periodic bookmarks/.test(l.msg)), JSON.stringify(lines));
  const pending = it.next();
  assert.equal(await settledAfter(clock, pending, 90_000), false, "the third watch gets the long bound");
  assert.equal(await settledAfter(clock, pending, 450_000 + 30_000 - 90_000), true);
  await it.return();
});

Deno.test("the initial-events-end bookmark is not taken for a heartbeat", async () => {
  const clock = new FakeClock();
  const body = new PushBody();
  const lw = new PushListWatcher("10", [body]);
  const it = start(lw, clock, { initialList: "stream" });
  const first = it.next();
  await clock.waitForTimers(1);
  await clock.advance(40_000);
  await body.push(bookmark("10", true));
  await first;
  await take(it, 1); // initDone
  const pending = it.next();
  // Two silent periods fall back to the long bound: the end bookmark did not count as a heartbeat.
  assert.equal(await settledAfter(clock, pending, 90_000), true);
  await it.return();
});

Deno.test("heartbeatMs: 0 keeps the long bound", async () => {
  const clock = new FakeClock();
  const lw = new PushListWatcher("10", []);
  const it = start(lw, clock, { heartbeatMs: 0 });
  await take(it, 2);
  const pending = it.next();
  assert.equal(await settledAfter(clock, pending, 450_000 + 29_999), false);
  assert.equal(await settledAfter(clock, pending, 1), true);
  await it.return();
});

Deno.test("events between two silent periods keep the short bound: the silence was a dead connection", async () => {
  const clock = new FakeClock();
  const second = new PushBody();
  const lw = new PushListWatcher("10", [new PushBody(), second]);
  const it = start(lw, clock);
  await take(it, 2);
  let pending = it.next();
  assert.equal(await settledAfter(clock, pending, 90_000), true, "first silent period");
  await pending;
  pending = it.next();
  await clock.waitForTimers(1);
  await second.push(line("ADDED", cm("missed", "11"))); // the resumed watch replays what the dead one missed
  assert.equal((await pending).value?.type, "apply");
  pending = it.next();
  assert.equal(await settledAfter(clock, pending, 90_000), true, "second silent period: still 90 s");
  await pending;
  pending = it.next();
  assert.equal(await settledAfter(clock, pending, 90_000), true, "and the next watch keeps the short bound");
  await it.return();
});
