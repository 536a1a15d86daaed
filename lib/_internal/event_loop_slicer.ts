/**
 * Lets timers and I/O run during a long stretch of work whose awaits are all already settled.
 *
 * A worker that takes keys from a queue with a backlog and reconciles them from the cache awaits only
 * promises that resolve at once: microtasks, which never give way to timers or I/O. 20,000 such
 * reconciles after a failover held the event loop for seconds, so the Lease renewal timer fired late and
 * the new leader lost its Lease. `pause()` resolves at once until `sliceMs` of real time have passed
 * since the event loop last had a turn, then waits for one turn (a zero-delay timer).
 */
export class EventLoopSlicer {
  readonly #sliceMs: number;
  #since = performance.now();

  /** Gives the event loop a turn at least every `sliceMs` of work. */
  constructor(sliceMs = 10) {
    this.#sliceMs = sliceMs;
  }

  /** Resolves at once, or after one turn of the event loop when the slice is used up. */
  pause(): Promise<void> | undefined {
    if (performance.now() - this.#since < this.#sliceMs) return undefined;
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        this.#since = performance.now();
        resolve();
      }, 0)
    );
  }
}
