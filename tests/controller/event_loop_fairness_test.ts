/**
 * A backlog of reconciles that only read the cache awaits nothing but settled promises, so without a
 * pause the workers would hold the event loop until the backlog is gone: timers (the Lease renewal)
 * and I/O wait. A failover that reconciled 20,000 converged objects held it for seconds, and the new
 * leader lost its Lease. Real timers here: this is about the real event loop.
 */
import assert from "node:assert/strict";
import { Controller } from "../../lib/controller/mod.ts";
import { FakeInformers, fooRef, obj } from "./fake_informers.ts";

Deno.test("a backlog of 10,000 cache-only reconciles lets timers run every few milliseconds", async () => {
  const informers = new FakeInformers();
  const foos = informers.get(fooRef);
  for (let i = 0; i < 10_000; i++) foos.add(obj(`foo-${i}`));
  let done = 0;
  const controller = new Controller(informers, {
    name: "fairness",
    for: fooRef,
    workers: 2,
    reconcile: () => {
      // 40 µs of work each: the backlog takes 0.4 s whatever the machine's speed.
      const until = performance.now() + 0.04;
      while (performance.now() < until) { /* a reconcile that computes, from the cache */ }
      done++;
      return Promise.resolve();
    },
  });
  const gaps: number[] = [];
  let last = performance.now();
  let started = false;
  const probe = setInterval(() => {
    const now = performance.now();
    if (started && done < 10_000) gaps.push(now - last);
    last = now;
  }, 20);
  const stop = new AbortController();
  informers.syncAll();
  const running = controller.run({ signal: stop.signal });
  started = true;
  last = performance.now();
  while (done < 10_000) await new Promise((r) => setTimeout(r, 5));
  clearInterval(probe);
  stop.abort();
  await running;
  assert.ok(gaps.length >= 5, `the timer ran ${gaps.length} times during the backlog`);
  const worst = Math.max(...gaps);
  assert.ok(worst < 250, `the timer waited at most ${worst.toFixed(0)} ms (slice 10 ms + one reconcile)`);
});
