import assert from "node:assert/strict";
import { DelayingQueue } from "../../lib/queue/delaying_queue.ts";
import { FakeClock } from "../_util/fake_clock.ts";

Deno.test("an item added after a delay appears only once the delay has passed", async () => {
  const clock = new FakeClock();
  const queue = new DelayingQueue({ clock });
  queue.addAfter("a", 1000);
  assert.equal(queue.len(), 0);
  assert.equal(queue.scheduled, 1);
  await clock.advance(999);
  assert.equal(queue.len(), 0);
  await clock.advance(1);
  assert.equal(queue.len(), 1);
  assert.equal(queue.scheduled, 0);
  assert.equal(await queue.get(), "a");
});

Deno.test("a zero or negative delay adds at once", () => {
  const clock = new FakeClock();
  const queue = new DelayingQueue({ clock });
  queue.addAfter("a", 0);
  queue.addAfter("b", -5);
  assert.equal(queue.len(), 2);
  assert.equal(clock.pending, 0);
});

Deno.test("items come out in the order they fall due, not the order they were scheduled", async () => {
  const clock = new FakeClock();
  const queue = new DelayingQueue({ clock });
  queue.addAfter("late", 300);
  queue.addAfter("early", 100);
  queue.addAfter("middle", 200);
  queue.addAfter("tie", 200);
  await clock.advance(300);
  const got = [];
  while (queue.len() > 0) got.push(await queue.get());
  assert.deepEqual(got, ["early", "middle", "tie", "late"]);
});

Deno.test("the earliest schedule wins when an item is scheduled twice", async () => {
  const clock = new FakeClock();
  const queue = new DelayingQueue({ clock });
  queue.addAfter("a", 500);
  queue.addAfter("a", 100);
  queue.addAfter("a", 900); // later than the current schedule: ignored
  assert.equal(queue.scheduled, 1);
  await clock.advance(100);
  assert.equal(queue.len(), 1);
  assert.equal(await queue.get(), "a");
  await clock.advance(1000);
  assert.equal(queue.len(), 0, "the superseded schedules do not add it again");
});

Deno.test("only one timer is pending, for the earliest due item", async () => {
  const clock = new FakeClock();
  const queue = new DelayingQueue({ clock });
  for (let i = 0; i < 50; i++) queue.addAfter(`k${i}`, 1000 + i);
  assert.equal(clock.pending, 1);
  queue.addAfter("first", 10);
  assert.equal(clock.pending, 1, "re-armed, not added");
  await clock.advance(10);
  assert.equal(queue.len(), 1);
  assert.equal(clock.pending, 1);
  await clock.advance(2000);
  assert.equal(queue.len(), 51);
  assert.equal(clock.pending, 0);
});

Deno.test("shutDown cancels the timer and drops scheduled items", async () => {
  const clock = new FakeClock();
  const queue = new DelayingQueue({ clock });
  queue.addAfter("a", 100);
  await queue.shutDown();
  assert.equal(clock.pending, 0);
  assert.equal(queue.scheduled, 0);
  queue.addAfter("b", 100);
  assert.equal(clock.pending, 0);
  await clock.advance(1000);
  assert.equal(queue.len(), 0);
});

Deno.test("a non-finite delay is a RangeError", () => {
  const queue = new DelayingQueue({ clock: new FakeClock() });
  assert.throws(() => queue.addAfter("a", Number.NaN), RangeError);
  assert.throws(() => queue.addAfter("a", Infinity), RangeError);
});

Deno.test("the real clock's timer does not outlive shutdown", async () => {
  const queue = new DelayingQueue();
  queue.addAfter("a", 60_000);
  await queue.shutDown(); // the resource sanitizer fails this test if the timer is left
  assert.equal(queue.len(), 0);
});

Deno.test("dueAt tells when a scheduled item will be added: the earliest schedule, until it is added", async () => {
  const clock = new FakeClock();
  const queue = new DelayingQueue({ clock });
  const t0 = clock.now();
  assert.equal(queue.dueAt("a"), undefined);
  queue.addAfter("a", 500);
  queue.addAfter("a", 900);
  assert.equal(queue.dueAt("a"), t0 + 500);
  queue.addAfter("a", 100);
  assert.equal(queue.dueAt("a"), t0 + 100);
  await clock.advance(100);
  assert.equal(queue.dueAt("a"), undefined, "added");
  queue.addAfter("b", 100);
  queue.addNow("b");
  assert.equal(queue.dueAt("b"), undefined, "added early");
  await queue.shutDown();
});
