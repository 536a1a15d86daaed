import assert from "node:assert/strict";
import { Backoff, withBackoff } from "../../lib/watch/backoff.ts";
import type { WatcherEvent } from "../../lib/watch/watcher_event.ts";
import { FakeClock } from "../_util/fake_clock.ts";

Deno.test("the delay cap doubles from 800 ms up to 30 s", () => {
  const b = new Backoff({ clock: new FakeClock(), random: () => 1 });
  assert.deepEqual(Array.from({ length: 8 }, () => b.next()), [
    800,
    1600,
    3200,
    6400,
    12800,
    25600,
    30000,
    30000,
  ]);
});

Deno.test("full jitter draws each delay uniformly from [0, cap]", () => {
  const values = [0, 0.5, 0.25];
  const b = new Backoff({ clock: new FakeClock(), random: () => values.shift()! });
  assert.deepEqual([b.next(), b.next(), b.next()], [0, 800, 800]);
});

Deno.test("after two healthy minutes the backoff starts from the beginning again", async () => {
  const clock = new FakeClock();
  const b = new Backoff({ clock, random: () => 1 });
  b.next();
  b.next();
  await clock.advance(119_999);
  assert.equal(b.next(), 3200, "not yet healthy long enough");
  await clock.advance(120_000);
  assert.equal(b.next(), 800);
  b.next();
  b.reset();
  assert.equal(b.next(), 800);
});

Deno.test("inconsistent backoff options are RangeErrors", () => {
  assert.throws(() => new Backoff({ initialMs: 10, maxMs: 5 }), RangeError);
  assert.throws(() => new Backoff({ factor: 0.5 }), RangeError);
});

async function* scripted(events: WatcherEvent[]): AsyncGenerator<WatcherEvent> {
  for (const e of events) yield e;
}

Deno.test("withBackoff yields errors, reports them, and sleeps on the clock before pulling again", async () => {
  const clock = new FakeClock();
  const reported: [string, number][] = [];
  const warnings: string[] = [];
  const logger = {
    debug() {},
    info() {},
    warn: (msg: string) => void warnings.push(msg),
    error() {},
    child() {
      return logger;
    },
  };
  const it = withBackoff(scripted([{ type: "error", error: new Error("boom") }, { type: "init" }]), {
    clock,
    logger,
    backoff: new Backoff({ clock, random: () => 1 }),
    onError: (e, ms) => void reported.push([e.message, ms]),
  });
  assert.equal((await it.next()).value?.type, "error");
  const box: { next?: IteratorResult<WatcherEvent> } = {};
  it.next().then((r) => box.next = r);
  const peek = () => box.next;
  await clock.advance(799);
  assert.equal(peek(), undefined, "still sleeping");
  await clock.advance(1);
  assert.equal(peek()?.value?.type, "init");
  assert.deepEqual(reported, [["boom", 800]]);
  assert.equal(warnings.length, 1);
  assert.equal((await it.next()).done, true);
});

Deno.test("withBackoff ends quietly when aborted during a sleep", async () => {
  const clock = new FakeClock();
  const ac = new AbortController();
  const it = withBackoff(scripted([{ type: "error", error: new Error("x") }, { type: "init" }]), {
    clock,
    signal: ac.signal,
    backoff: new Backoff({ clock, random: () => 1 }),
  });
  await it.next();
  const pending = it.next();
  ac.abort();
  assert.deepEqual(await pending, { done: true, value: undefined });
  assert.equal(clock.pending, 0);
});
