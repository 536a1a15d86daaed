import type { Logger } from "../log/logger.ts";

/** One background write; it must pass `signal` down to its requests. */
export type WriteJob = (signal: AbortSignal) => Promise<void>;

/**
 * Event writes, one at a time in the background, so recording never waits and a burst of events never
 * opens a burst of requests. At most `maxPending` wait; beyond that new ones are dropped with a warning,
 * because an unreachable API server must not make the recorder grow without bound.
 */
export class WriteQueue {
  #maxPending: number;
  #logger: Logger;
  #tail: Promise<void> = Promise.resolve();
  #pending = 0;
  /** Aborted when waiting writes are abandoned; jobs queued under it are skipped. */
  #batch = new AbortController();

  /** Creates an empty queue. */
  constructor(maxPending: number, logger: Logger) {
    this.#maxPending = maxPending;
    this.#logger = logger;
  }

  /** Queues `job` after the writes already waiting; false when it was dropped. */
  push(job: WriteJob): boolean {
    if (this.#pending >= this.#maxPending) {
      this.#logger.warn("Event dropped: too many pending writes", { maxPending: this.#maxPending });
      return false;
    }
    this.#pending++;
    const signal = this.#batch.signal;
    this.#tail = this.#tail.then(() => signal.aborted ? undefined : job(signal)).catch((error) => {
      this.#logger.error("Event writer failed", { error: String(error) });
    }).finally(() => void this.#pending--);
    return true;
  }

  /**
   * Resolves true once every write (including ones queued meanwhile) finished. When `signal` aborts
   * first, the writes still pending are abandoned: the one in flight is aborted through its signal,
   * the waiting ones are skipped, and it resolves false at once without waiting for them, so a caller
   * on its way out is bounded even by a request that ignores its signal.
   */
  async drain(signal: AbortSignal): Promise<boolean> {
    const { promise: aborted, resolve } = Promise.withResolvers<false>();
    const onAbort = () => resolve(false);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    try {
      while (this.#pending > 0) {
        if (await Promise.race([this.#tail.then(() => true), aborted])) continue;
        this.#logger.warn("Event writes abandoned", {
          pending: this.#pending,
          reason: String(signal.reason),
        });
        this.#batch.abort(signal.reason);
        this.#batch = new AbortController();
        return false;
      }
      return true;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }
}
