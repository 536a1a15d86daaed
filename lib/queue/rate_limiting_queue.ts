import { DelayingQueue, type DelayingQueueOptions } from "./delaying_queue.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate_limiters.ts";

/** Options of {@link RateLimitingQueue}. */
export interface RateLimitingQueueOptions<T> extends DelayingQueueOptions {
  /**
   * Decides how long a failed item waits.
   * @default {defaultControllerRateLimiter} on this queue's clock
   */
  rateLimiter?: RateLimiter<T>;
}

/**
 * The controller's queue: a {@link DelayingQueue} whose `addRateLimited` delays an item as its
 * {@link RateLimiter} says, so failing keys back off while the rest keep flowing. Call `forget`
 * once an item succeeds, or its backoff keeps growing.
 */
export class RateLimitingQueue<T = string> extends DelayingQueue<T> {
  #limiter: RateLimiter<T>;

  /** Creates an empty queue. */
  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter<T>({ clock: this.clock });
  }

  /** Adds `item` once the rate limiter allows it; counts as a retry. Ignored after shutdown. */
  addRateLimited(item: T): void {
    if (this.shuttingDown) return;
    this.metrics.retried();
    this.addAfter(item, this.#limiter.when(item));
  }

  /** Resets the retry history of `item`. Does not remove it from the queue. */
  forget(item: T): void {
    this.#limiter.forget(item);
  }

  /** How many rate-limited retries `item` has had since it was last forgotten. */
  numRequeues(item: T): number {
    return this.#limiter.numRequeues(item);
  }
}
