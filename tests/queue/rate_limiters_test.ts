import assert from "node:assert/strict";
import {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  exponentialFailureRateLimiter,
  maxOfRateLimiter,
  type RateLimiter,
} from "../../lib/queue/rate_limiters.ts";
import { FakeClock } from "../_util/fake_clock.ts";

Deno.test("the exponential limiter doubles per failure from 5 ms and caps at 1000 s", () => {
  const limiter = exponentialFailureRateLimiter();
  const delays = Array.from({ length: 5 }, () => limiter.when("a"));
  assert.deepEqual(delays, [5, 10, 20, 40, 80]);
  assert.equal(limiter.numRequeues("a"), 5);
  for (let i = 0; i < 20; i++) limiter.when("a");
  assert.equal(limiter.when("a"), 1_000_000);
  for (let i = 0; i < 2000; i++) limiter.when("a"); // 2^n overflows to Infinity here
  assert.equal(limiter.when("a"), 1_000_000);
});

Deno.test("the exponential limiter counts each item separately and forget resets one", () => {
  const limiter = exponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 6 });
  assert.equal(limiter.when("a"), 1);
  assert.equal(limiter.when("a"), 2);
  assert.equal(limiter.when("b"), 1);
  assert.equal(limiter.when("a"), 4);
  assert.equal(limiter.when("a"), 6);
  limiter.forget("a");
  assert.equal(limiter.numRequeues("a"), 0);
  assert.equal(limiter.numRequeues("b"), 1);
  assert.equal(limiter.when("a"), 1);
});

Deno.test("the bucket limiter lets the burst through, then spaces retries by 1/qps", async () => {
  const clock = new FakeClock();
  const limiter = bucketRateLimiter({ qps: 10, burst: 100, clock });
  for (let i = 0; i < 100; i++) assert.equal(limiter.when(`k${i}`), 0);
  assert.equal(limiter.when("x"), 100);
  assert.equal(limiter.when("y"), 200);
  assert.equal(limiter.when("z"), 300);
  await clock.advance(300); // the three reservations are used up, nothing refilled beyond them
  assert.equal(limiter.when("w"), 100);
  await clock.advance(60_000);
  assert.equal(limiter.when("v"), 0, "the bucket refilled");
  assert.equal(limiter.numRequeues("v"), 0);
});

Deno.test("the bucket limiter rejects a zero qps or burst", () => {
  assert.throws(() => bucketRateLimiter({ qps: 0 }), RangeError);
  assert.throws(() => bucketRateLimiter({ burst: 0 }), RangeError);
});

function fixed(ms: number, requeues: number): RateLimiter & { forgotten: string[] } {
  const forgotten: string[] = [];
  return {
    forgotten,
    when: () => ms,
    forget: (item) => void forgotten.push(item),
    numRequeues: () => requeues,
  };
}

Deno.test("the max-of limiter waits as long as the slowest limiter and forgets in all", () => {
  const slow = fixed(300, 1);
  const fast = fixed(20, 4);
  const limiter = maxOfRateLimiter(fast, slow);
  assert.equal(limiter.when("a"), 300);
  assert.equal(limiter.numRequeues("a"), 4);
  limiter.forget("a");
  assert.deepEqual([slow.forgotten, fast.forgotten], [["a"], ["a"]]);
  assert.throws(() => maxOfRateLimiter(), TypeError);
});

Deno.test("the default controller limiter combines backoff with the overall bucket", () => {
  const clock = new FakeClock();
  const limiter = defaultControllerRateLimiter({ clock });
  assert.equal(limiter.when("a"), 5);
  assert.equal(limiter.when("a"), 10);
  for (let i = 0; i < 98; i++) limiter.when(`k${i}`);
  assert.equal(limiter.when("b"), 100, "the bucket is empty, so it beats the 5 ms backoff");
});
