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
 *
 * @example A failing key comes back later, each time after a longer wait
 * ```ts
 * import assert from "node:assert/strict";
 * import { exponentialFailureRateLimiter, RateLimitingQueue } from "@kubeloop/kubeloop";
 *
 * // The default limiter (5 ms doubling up to 1000 s, 10 qps overall) suits controllers; this one is quick.
 * const rateLimiter = exponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 1_000 });
 * await using queue = new RateLimitingQueue<string>({ rateLimiter });
 * queue.add("shop/a");
 * const key = (await queue.get())!;
 * queue.addRateLimited(key); // reconcile failed: back in 10 ms, then 20, 40, ...
 * queue.done(key);
 * assert.equal(queue.len(), 0);
 * assert.equal(await queue.get(), key);
 * queue.forget(key); // reconcile succeeded: the next failure waits 10 ms again
 * queue.done(key);
 * ```
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
