import assert from "node:assert/strict";
import { ReviewLanes, ReviewThrottled } from "../../lib/auth/review_lanes.ts";
import { FakeClock } from "../_util/fake_clock.ts";

const limits = { unknownQps: 5, unknownBurst: 10, unknownInFlight: 4, knownInFlight: 2 };

function throttledAfter(fn: () => unknown): number {
  try {
    fn();
  } catch (error) {
    if (error instanceof ReviewThrottled) return error.retryAfterSeconds;
    throw error;
  }
  return assert.fail("expected ReviewThrottled");
}

Deno.test("unknown tokens: a burst, then the rate; a refusal says when to come back", async () => {
  const clock = new FakeClock();
  const lanes = new ReviewLanes({ ...limits, unknownInFlight: 100 }, clock);
  for (let i = 0; i < 10; i++) lanes.enter("unknown")();
  assert.equal(throttledAfter(() => lanes.enter("unknown")), 1);
  await clock.advance(200);
  lanes.enter("unknown")();
  assert.equal(throttledAfter(() => lanes.enter("unknown")), 1);
  await clock.advance(60_000);
  let admitted = 0;
  for (let i = 0; i < 100; i++) {
    try {
      lanes.enter("unknown")();
      admitted++;
    } catch {
      // over the burst
    }
  }
  assert.equal(admitted, 10, "a long quiet spell refills the burst, not more");
  const slow = new ReviewLanes({ ...limits, unknownQps: 0.1, unknownBurst: 1 }, clock);
  slow.enter("unknown")();
  assert.equal(throttledAfter(() => slow.enter("unknown")), 10, "Retry-After: the time to the next token");
});

Deno.test("attack: slots are per lane; the unknown lane full leaves the known lane's slots free", () => {
  const lanes = new ReviewLanes(limits, new FakeClock());
  const unknown = Array.from({ length: 4 }, () => lanes.enter("unknown"));
  assert.equal(throttledAfter(() => lanes.enter("unknown")), 1);
  const known = [lanes.enter("known"), lanes.enter("known")];
  assert.equal(throttledAfter(() => lanes.enter("known")), 1);
  assert.deepEqual(lanes.inFlight, { unknown: 4, known: 2 });
  known[0]!();
  known[0]!(); // releasing twice frees one slot only
  assert.deepEqual(lanes.inFlight, { unknown: 4, known: 1 });
  for (const release of unknown) release();
  assert.deepEqual(lanes.inFlight, { unknown: 0, known: 1 });
});

Deno.test("limits that are not positive are refused", () => {
  const clock = new FakeClock();
  assert.throws(() => new ReviewLanes({ ...limits, unknownQps: 0 }, clock), RangeError);
  assert.throws(() => new ReviewLanes({ ...limits, unknownBurst: 0.5 }, clock), RangeError);
  assert.throws(() => new ReviewLanes({ ...limits, knownInFlight: 0 }, clock), RangeError);
});
