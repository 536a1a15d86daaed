import type { Clock, Timer } from "../time/clock.ts";

/**
 * A manual clock for unit tests: time moves only when `advance` is called, firing due timers in order.
 * Pass it as the `clock` option of anything that waits (informers, queues, controllers, the event
 * recorder), so tests never sleep.
 *
 * @example A minute passes at once
 * ```ts
 * import assert from "node:assert/strict";
 * import { DelayingQueue } from "@kubeloop/kubeloop";
 * import { FakeClock } from "@kubeloop/kubeloop/testing";
 *
 * const clock = new FakeClock(); // anything that takes a `clock` option
 * await using queue = new DelayingQueue<string>({ clock });
 * queue.addAfter("shop/a", 60_000);
 * await clock.advance(59_999);
 * assert.equal(queue.len(), 0);
 * await clock.advance(1); // fires the timers that are due, in order
 * assert.equal(queue.len(), 1);
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  #timers: { at: number; seq: number; fn: () => void; cancelled: boolean }[] = [];
  #seq = 0;

  /** Starts at `start` ms since the epoch (2023-11-14T22:13:20Z by default). */
  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  /** The fake time, in ms since the epoch. */
  now(): number {
    return this.#now;
  }

  /** Schedules `fn` at now + `ms` of fake time. */
  setTimer(fn: () => void, ms: number): Timer {
    const entry = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn, cancelled: false };
    this.#timers.push(entry);
    return { cancel: () => void (entry.cancelled = true) };
  }

  /** Number of timers still pending. */
  get pending(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /**
   * Lets promise chains run until at least `count` timers are pending; rejects after `timeoutMs` of real
   * time. Code that re-arms a timer after real asynchronous work (WebCrypto, I/O) finishes at a moment
   * no number of microtask turns can predict on a loaded machine, so the bound is time, not turns.
   * @param count Timers to wait for. @default {1}
   * @param timeoutMs Real milliseconds before giving up. @default {10_000}
   */
  async waitForTimers(count = 1, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending < count) {
      if (Date.now() > deadline) {
        throw new Error(`expected ${count} pending timer(s) within ${timeoutMs} ms, have ${this.pending}`);
      }
      await flush();
    }
  }

  /**
   * Moves time forward by `ms` WITHOUT firing any timer, as a process pause (SIGSTOP) looks to the paused
   * process: when it runs again, time has jumped and every overdue timer is still pending. The next
   * `advance` fires them.
   */
  jump(ms: number): void {
    this.#now += ms;
  }

  /**
   * Moves time forward by `ms`, firing due timers in order; lets queued microtasks run after
   * each one so awaiting code observes the timer before the next fires.
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      this.#timers = this.#timers.filter((t) => !t.cancelled);
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#timers[0];
      if (!next || next.at > target) break;
      this.#timers.shift();
      this.#now = Math.max(this.#now, next.at); // overdue after a jump: time does not go back
      next.fn();
      await flush();
    }
    this.#now = target;
    await flush();
  }
}

/** Lets pending promise callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 0));
}
