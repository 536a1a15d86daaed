import assert from "node:assert/strict";
import { coarseTimers } from "../../lib/webhook/_coarse_timers.ts";
import { FakeClock } from "../../lib/testing/mod.ts";

Deno.test("timers fire at their due time or up to the resolution later, in one underlying timer", async () => {
  const clock = new FakeClock();
  const coarse = coarseTimers(clock, 100);
  const fired: string[] = [];
  coarse.setTimer(() => fired.push("a"), 1_000);
  coarse.setTimer(() => fired.push("b"), 1_050);
  coarse.setTimer(() => fired.push("c"), 5_000);
  assert.equal(clock.pending, 1);
  await clock.advance(999);
  assert.equal(fired.length, 0);
  await clock.advance(101);
  assert.deepEqual(fired, ["a", "b"]);
  await clock.advance(3_999);
  assert.deepEqual(fired, ["a", "b"]);
  await clock.advance(101);
  assert.deepEqual(fired, ["a", "b", "c"]);
  assert.equal(clock.pending, 0);
});

Deno.test("a cancelled timer never fires; with none left, nothing stays scheduled", async () => {
  const clock = new FakeClock();
  const coarse = coarseTimers(clock, 100);
  const fired: string[] = [];
  const a = coarse.setTimer(() => fired.push("a"), 1_000);
  const b = coarse.setTimer(() => fired.push("b"), 2_000);
  a.cancel();
  await clock.advance(1_200);
  assert.equal(fired.length, 0);
  b.cancel();
  assert.equal(clock.pending, 0);
  // An earlier timer set after a later one is not delayed to the later one's time.
  coarse.setTimer(() => fired.push("late"), 10_000);
  coarse.setTimer(() => fired.push("early"), 500);
  await clock.advance(600);
  assert.deepEqual(fired, ["early"]);
  await clock.advance(10_000);
  assert.deepEqual(fired, ["early", "late"]);
});
