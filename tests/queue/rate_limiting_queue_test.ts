import assert from "node:assert/strict";
import { RateLimitingQueue } from "../../lib/queue/rate_limiting_queue.ts";
import { exponentialFailureRateLimiter } from "../../lib/queue/rate_limiters.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { recordingMetrics } from "./_recording_metrics.ts";

Deno.test("a rate-limited item is added after the limiter's delay, growing per failure", async () => {
  const clock = new FakeClock();
  const queue = new RateLimitingQueue({
    clock,
    rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 10 }),
  });
  queue.addRateLimited("a");
  await clock.advance(9);
  assert.equal(queue.len(), 0);
  await clock.advance(1);
  assert.equal(await queue.get(), "a");
  queue.done("a");
  queue.addRateLimited("a");
  await clock.advance(19);
  assert.equal(queue.len(), 0);
  await clock.advance(1);
  assert.equal(queue.len(), 1);
  assert.equal(queue.numRequeues("a"), 2);
});

Deno.test("forget resets the backoff of an item", async () => {
  const clock = new FakeClock();
  const queue = new RateLimitingQueue({ clock });
  queue.addRateLimited("a");
  queue.addRateLimited("a");
  assert.equal(queue.numRequeues("a"), 2);
  queue.forget("a");
  assert.equal(queue.numRequeues("a"), 0);
  queue.addRateLimited("a");
  await clock.advance(5);
  assert.equal(queue.len(), 1, "the first retry after forget waits the base delay again");
});

Deno.test("rate-limited adds count as retries and are ignored after shutdown", async () => {
  const clock = new FakeClock();
  const metrics = recordingMetrics();
  const queue = new RateLimitingQueue({ clock, metrics, name: "foos" });
  assert.equal(queue.name, "foos");
  queue.addRateLimited("a");
  queue.addRateLimited("b");
  assert.equal(metrics.recorded.retries, 2);
  await queue.shutDown();
  queue.addRateLimited("c");
  assert.equal(metrics.recorded.retries, 2);
  assert.equal(queue.numRequeues("c"), 0);
  assert.equal(clock.pending, 0);
});

Deno.test("the queue can be disposed with await using", async () => {
  const clock = new FakeClock();
  let queue: RateLimitingQueue | undefined;
  {
    await using q = new RateLimitingQueue({ clock });
    q.addAfter("a", 100);
    queue = q;
  }
  assert.equal(queue.shuttingDown, true);
  assert.equal(clock.pending, 0);
});

Deno.test("retryNow adds every item waiting for a rate-limited retry at once, keeping its retry count", async () => {
  const clock = new FakeClock();
  const queue = new RateLimitingQueue({
    clock,
    rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 1000 }),
  });
  for (let i = 0; i < 5; i++) queue.addRateLimited("a"); // grown to 16 s while the server was down
  queue.addRateLimited("b");
  queue.addAfter("periodic", 60_000); // a requeueAfter, not a retry
  assert.equal(queue.len(), 0);
  assert.equal(queue.retryNow(), 2);
  assert.equal(queue.len(), 2);
  assert.deepEqual([await queue.get(), await queue.get()].sort(), ["a", "b"]);
  assert.equal(queue.numRequeues("a"), 5, "a failure after the retry backs off further");
  assert.equal(queue.scheduled, 1, "the requeueAfter item keeps its time");
  queue.done("a");
  queue.done("b");
  await clock.advance(16_000);
  assert.equal(queue.len(), 0, "the dropped schedules do not add the items a second time");
  await queue.shutDown();
});

Deno.test("retryNow skips items that succeeded since (forget) and items already added", async () => {
  const clock = new FakeClock();
  const queue = new RateLimitingQueue({
    clock,
    rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 1000 }),
  });
  queue.addRateLimited("ok");
  queue.forget("ok");
  assert.equal(queue.retryNow(), 0, "a forgotten item keeps its schedule but is no retry any more");
  queue.addRateLimited("due");
  await clock.advance(1000);
  assert.equal(queue.len(), 2);
  assert.equal(queue.retryNow(), 0, "both were added already");
  assert.equal(queue.len(), 2);
  await queue.shutDown();
});
