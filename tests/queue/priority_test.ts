import assert from "node:assert/strict";
import { LOW_PRIORITY, RateLimitingQueue, WorkQueue } from "../../lib/queue/mod.ts";
import { FakeClock } from "../_util/fake_clock.ts";

async function drain<T>(q: WorkQueue<T>): Promise<T[]> {
  const out: T[] = [];
  while (q.len() > 0) {
    const item = (await q.get())!;
    out.push(item);
    q.done(item);
  }
  return out;
}

Deno.test("higher priorities are handed out first, FIFO within a priority", async () => {
  const q = new WorkQueue<string>();
  for (const k of ["init-1", "init-2", "init-3"]) q.add(k, { priority: LOW_PRIORITY });
  q.add("change-1");
  q.add("urgent", { priority: 10 });
  q.add("change-2");
  assert.equal(q.len(), 6);
  assert.deepEqual(await drain(q), ["urgent", "change-1", "change-2", "init-1", "init-2", "init-3"]);
});

Deno.test("adding a waiting item again raises its priority, never lowers it, and it waits once", async () => {
  const q = new WorkQueue<string>();
  q.add("a", { priority: LOW_PRIORITY });
  q.add("b", { priority: LOW_PRIORITY });
  q.add("c");
  q.add("b"); // a real change to b: it now waits with the changes, behind c
  q.add("c", { priority: LOW_PRIORITY }); // a resync of c does not push it back
  assert.equal(q.len(), 3);
  assert.deepEqual(await drain(q), ["c", "b", "a"]);
});

Deno.test("an item re-added with a higher priority while processing is queued at it after done", async () => {
  const q = new WorkQueue<string>();
  q.add("a", { priority: LOW_PRIORITY });
  const a = await q.get();
  q.add("low", { priority: LOW_PRIORITY });
  q.add("a"); // changed while processing
  q.done(a!);
  assert.deepEqual(await drain(q), ["a", "low"]);
});

Deno.test("delayed and rate-limited adds keep their priority", async () => {
  const clock = new FakeClock();
  const q = new RateLimitingQueue<string>({ clock });
  q.addAfter("later-low", 100, { priority: LOW_PRIORITY });
  q.addRateLimited("retry-high", { priority: 5 });
  q.add("now-low", { priority: LOW_PRIORITY });
  await clock.advance(1_000);
  assert.deepEqual(await drain(q), ["retry-high", "now-low", "later-low"]);
});

Deno.test("a priority that is not a finite number is a RangeError", () => {
  const q = new WorkQueue<string>();
  assert.throws(() => q.add("a", { priority: Number.NaN }), RangeError);
  assert.throws(() => q.add("a", { priority: Infinity }), RangeError);
});

Deno.test("10,000 low-priority items: a real change added last is handed out first", async () => {
  const q = new WorkQueue<number>();
  for (let i = 0; i < 10_000; i++) q.add(i, { priority: LOW_PRIORITY });
  q.add(-1);
  assert.equal(await q.get(), -1);
});

Deno.test("the priority an item was handed out at is known until done", async () => {
  const q = new WorkQueue<string>();
  q.add("low", { priority: LOW_PRIORITY });
  q.add("raised", { priority: LOW_PRIORITY });
  q.add("raised", { priority: 3 });
  q.add("plain");
  assert.equal(q.handedOutPriority("raised"), undefined, "waiting, not handed out");
  const [a, b, c] = [(await q.get())!, (await q.get())!, (await q.get())!];
  assert.deepEqual([a, b, c], ["raised", "plain", "low"]);
  assert.deepEqual([q.handedOutPriority(a), q.handedOutPriority(b), q.handedOutPriority(c)], [
    3,
    0,
    LOW_PRIORITY,
  ]);
  q.done(c);
  assert.equal(q.handedOutPriority(c), undefined);
  q.done(a);
  q.done(b);
});
