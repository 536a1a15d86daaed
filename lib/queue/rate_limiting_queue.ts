import { DelayingQueue, type DelayingQueueOptions } from "./delaying_queue.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate_limiters.ts";
import type { AddOptions } from "./work_queue.ts";

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
  #retrying = new Set<T>();

  /** Creates an empty queue. */
  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter<T>({ clock: this.clock });
  }

  /** Adds `item` once the rate limiter allows it, with `options`; counts as a retry. Ignored after shutdown. */
  addRateLimited(item: T, options: AddOptions = {}): void {
    if (this.shuttingDown) return;
    this.metrics.retried();
    this.#retrying.add(item);
    this.addAfter(item, this.#limiter.when(item), options);
  }

  /** Resets the retry history of `item`. Does not remove it from the queue. */
  forget(item: T): void {
    this.#retrying.delete(item);
    this.#limiter.forget(item);
  }

  /**
   * Adds at once every item still waiting for a rate-limited retry, and returns how many. For when
   * the cause of the failures is known to be gone (the API server is reachable again): the items'
   * backoff, grown while it was down, would otherwise keep them waiting about as long again. Their
   * retry counts are kept, so an item that fails again backs off further.
   */
  retryNow(): number {
    let added = 0;
    for (const item of this.#retrying) if (this.addNow(item)) added++;
    this.#retrying.clear();
    return added;
  }

  /** How many rate-limited retries `item` has had since it was last forgotten. */
  numRequeues(item: T): number {
    return this.#limiter.numRequeues(item);
  }
}
