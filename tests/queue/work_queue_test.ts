import assert from "node:assert/strict";
import { WorkQueue } from "../../lib/queue/work_queue.ts";
import { recordingMetrics } from "./_recording_metrics.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";

Deno.test("items come out in the order they were added", async () => {
  const queue = new WorkQueue();
  for (const key of ["a", "b", "c", "d"]) queue.add(key);
  const got = [];
  for (let i = 0; i < 4; i++) got.push(await queue.get());
  assert.deepEqual(got, ["a", "b", "c", "d"]);
});

Deno.test("adding a key that is already queued does nothing", async () => {
  const queue = new WorkQueue();
  queue.add("a");
  queue.add("b");
  queue.add("a");
  queue.add("a");
  assert.equal(queue.len(), 2);
  assert.equal(await queue.get(), "a");
  assert.equal(await queue.get(), "b");
  assert.equal(queue.len(), 0);
});

Deno.test("string keys are compared by value and objects by identity", () => {
  const queue = new WorkQueue<unknown>();
  queue.add("ns/" + "name");
  queue.add(["ns", "name"].join("/"));
  const object = { key: 1 };
  queue.add(object);
  queue.add(object);
  queue.add({ key: 1 });
  assert.equal(queue.len(), 3);
});

Deno.test("waiting getters are served in the order they called", async () => {
  const queue = new WorkQueue();
  const first = queue.get();
  const second = queue.get();
  queue.add("x");
  queue.add("y");
  assert.equal(await first, "x");
  assert.equal(await second, "y");
});

Deno.test("a key is never handed to two workers at once", async () => {
  const queue = new WorkQueue();
  let active = 0;
  let maxActive = 0;
  let processed = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  async function worker(): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      active++;
      maxActive = Math.max(maxActive, active);
      processed++;
      if (processed === 1) {
        // While the first run is in progress, the same key is added again and again.
        for (let i = 0; i < 100; i++) queue.add("same");
        await gate;
      }
      await flush();
      active--;
      queue.done(key);
    }
  }
  const workers = [worker(), worker()];
  queue.add("same");
  await flush();
  assert.equal(processed, 1);
  assert.equal(queue.len(), 0, "the re-added key waits for done instead of being queued");
  release();
  await flush();
  await flush();
  await queue.shutDown({ drain: true });
  await Promise.all(workers);
  assert.equal(maxActive, 1);
  assert.equal(processed, 2, "100 adds while processing collapse into one more run");
});

Deno.test("a key re-added while it is processed is handed out again after done", async () => {
  const queue = new WorkQueue();
  queue.add("a");
  assert.equal(await queue.get(), "a");
  queue.add("a");
  queue.add("b");
  assert.equal(queue.len(), 1, "only b is waiting; a waits for done");
  assert.equal(await queue.get(), "b");
  const next = queue.get();
  let settled = false;
  void next.then(() => (settled = true));
  await flush();
  assert.equal(settled, false);
  queue.done("a");
  assert.equal(await next, "a");
});

Deno.test("done for a key that was not handed out is ignored", async () => {
  const queue = new WorkQueue();
  queue.add("a");
  queue.done("a");
  assert.equal(queue.len(), 1);
  assert.equal(await queue.get(), "a");
});

Deno.test("shutDown without drain wakes waiting getters with undefined", async () => {
  const queue = new WorkQueue();
  const waiting = [queue.get(), queue.get()];
  queue.add("a");
  const shut = queue.shutDown();
  assert.equal(queue.shuttingDown, true);
  await shut;
  assert.deepEqual(await Promise.all(waiting), ["a", undefined]);
  assert.equal(await queue.get(), undefined);
});

Deno.test("shutDown drops waiting items and ignores later adds", async () => {
  const queue = new WorkQueue();
  queue.add("a");
  queue.add("b");
  await queue.shutDown();
  assert.equal(queue.len(), 0);
  queue.add("c");
  assert.equal(queue.len(), 0);
  assert.equal(await queue.get(), undefined);
});

Deno.test("shutDown with drain waits until the items in flight are done", async () => {
  const queue = new WorkQueue();
  queue.add("a");
  queue.add("b");
  const a = await queue.get();
  const b = await queue.get();
  let drained = false;
  const shut = queue.shutDown({ drain: true }).then(() => (drained = true));
  queue.done(a!);
  await flush();
  assert.equal(drained, false, "b is still in flight");
  queue.add("b"); // ignored after shutdown, so done does not re-queue it
  queue.done(b!);
  await shut;
  assert.equal(drained, true);
  assert.equal(queue.len(), 0);
});

Deno.test("shutDown with drain resolves at once when nothing is in flight", async () => {
  const queue = new WorkQueue();
  await queue.shutDown({ drain: true });
  assert.equal(await queue.get(), undefined);
});

Deno.test("get rejects with the signal's reason when aborted and stops waiting", async () => {
  const queue = new WorkQueue();
  const controller = new AbortController();
  const pending = queue.get({ signal: controller.signal });
  controller.abort(new Error("stop"));
  await assert.rejects(pending, { message: "stop" });
  queue.add("a");
  assert.equal(queue.len(), 1, "the aborted getter did not take the item");
  await assert.rejects(queue.get({ signal: controller.signal }), { message: "stop" });
});

Deno.test("metrics hooks see depth, adds, latency, work duration and in-flight time", async () => {
  const clock = new FakeClock();
  const metrics = recordingMetrics();
  const queue = new WorkQueue({ clock, metrics });
  const { recorded } = metrics;
  assert.deepEqual(recorded.probe?.(), { unfinishedWorkSeconds: 0, longestRunningProcessorSeconds: 0 });
  queue.add("a");
  queue.add("a"); // collapsed: not an add
  await clock.advance(100);
  queue.add("b");
  assert.equal(recorded.adds, 2);
  assert.deepEqual(recorded.depth, [0, 1, 2]);
  await clock.advance(400);
  const a = await queue.get();
  await clock.advance(1000);
  const b = await queue.get();
  assert.deepEqual(recorded.latency, [0.5, 1.4]);
  assert.deepEqual(recorded.depth, [0, 1, 2, 1, 0]);
  await clock.advance(2000);
  assert.deepEqual(recorded.probe?.(), { unfinishedWorkSeconds: 3 + 2, longestRunningProcessorSeconds: 3 });
  queue.done(a!);
  queue.done(b!);
  assert.deepEqual(recorded.work, [3, 2]);
  assert.deepEqual(recorded.probe?.(), { unfinishedWorkSeconds: 0, longestRunningProcessorSeconds: 0 });
});
