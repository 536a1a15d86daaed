import assert from "node:assert/strict";
import { sleep, systemClock } from "../../lib/time/clock.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";

Deno.test("sleep resolves after ms on the given clock, not before", async () => {
  const clock = new FakeClock();
  let done = false;
  const slept = sleep(100, { clock }).then(() => void (done = true));
  await clock.advance(99);
  assert.equal(done, false);
  await clock.advance(1);
  await slept;
  assert.equal(done, true);
});

Deno.test("sleep rejects with the abort reason at once, and cancels its timer", async () => {
  const clock = new FakeClock();
  const ctl = new AbortController();
  const slept = sleep(1_000, { clock, signal: ctl.signal });
  await flush();
  assert.equal(clock.pending, 1);
  const reason = new Error("stop");
  ctl.abort(reason);
  await assert.rejects(slept, (e) => e === reason);
  assert.equal(clock.pending, 0, "nothing keeps the process alive");
});

Deno.test("sleep with an already aborted signal rejects without starting a timer", async () => {
  const clock = new FakeClock();
  const reason = new Error("already stopped");
  await assert.rejects(sleep(1_000, { clock, signal: AbortSignal.abort(reason) }), (e) => e === reason);
  assert.equal(clock.pending, 0);
});

Deno.test("the system clock's timers fire, and a cancelled one never does", async () => {
  const before = systemClock.now();
  let cancelledFired = false;
  systemClock.setTimer(() => void (cancelledFired = true), 5).cancel();
  await new Promise<void>((resolve) => systemClock.setTimer(resolve, 10));
  assert.ok(systemClock.now() - before >= 9, "a timer never fires early (1 ms for Date.now rounding)");
  assert.equal(cancelledFired, false);
  await sleep(1);
});
