import { type Clock, systemClock } from "../time/clock.ts";

/** Decides how long an item waits before it is retried. */
export interface RateLimiter<T = string> {
  /** Milliseconds `item` should wait now; counts as one more retry of it. */
  when(item: T): number;
  /** Forgets the failures of `item` (call after it succeeded). */
  forget(item: T): void;
  /** How many times `item` has been retried since it was last forgotten. */
  numRequeues(item: T): number;
}

/** Options of {@link exponentialFailureRateLimiter}. */
export interface ExponentialFailureOptions {
  /**
   * Delay of the first retry.
   * @default {5}
   */
  baseDelayMs?: number;
  /**
   * Upper bound of the delay.
   * @default {1_000_000}
   */
  maxDelayMs?: number;
}

/**
 * Per-item exponential backoff: the n-th retry (from 0) of an item waits `baseDelayMs * 2^n`,
 * capped at `maxDelayMs` (also once `2^n` would overflow).
 */
export function exponentialFailureRateLimiter<T = string>(
  options: ExponentialFailureOptions = {},
): RateLimiter<T> {
  const { baseDelayMs = 5, maxDelayMs = 1_000_000 } = options;
  if (!(baseDelayMs >= 0) || !(maxDelayMs >= 0)) {
    throw new RangeError(
      `Cannot create an exponential rate limiter with baseDelayMs ${baseDelayMs} and maxDelayMs ${maxDelayMs}: expected numbers >= 0`,
    );
  }
  const failures = new Map<T, number>();
  return {
    when(item) {
      const n = failures.get(item) ?? 0;
      failures.set(item, n + 1);
      const delay = baseDelayMs * 2 ** n;
      return Number.isFinite(delay) && delay < maxDelayMs ? delay : maxDelayMs;
    },
    forget(item) {
      failures.delete(item);
    },
    numRequeues(item) {
      return failures.get(item) ?? 0;
    },
  };
}

/** Options of {@link bucketRateLimiter}. */
export interface BucketOptions {
  /**
   * Tokens added per second.
   * @default {10}
   */
  qps?: number;
  /**
   * Bucket size: how many retries may happen at once.
   * @default {100}
   */
  burst?: number;
  /**
   * Time source of the refill.
   * @default {systemClock}
   */
  clock?: Clock;
}

/**
 * An overall token bucket shared by all items: `when` reserves a token and returns how long to wait
 * until it is available (0 while the burst lasts, then `1000 / qps` ms apart).
 */
export function bucketRateLimiter<T = string>(options: BucketOptions = {}): RateLimiter<T> {
  const { qps = 10, burst = 100, clock = systemClock } = options;
  if (!(qps > 0) || !Number.isFinite(qps) || !(burst >= 1) || !Number.isInteger(burst)) {
    throw new RangeError(
      `Cannot create a bucket rate limiter with qps ${qps} and burst ${burst}: expected qps > 0 and an integer burst >= 1`,
    );
  }
  // Tokens may go negative: each negative token is a reservation somebody is waiting for.
  let tokens = burst;
  let last = clock.now();
  return {
    when() {
      const now = clock.now();
      tokens = Math.min(burst, tokens + (Math.max(0, now - last) * qps) / 1000);
      last = now;
      tokens -= 1;
      return tokens >= 0 ? 0 : (-tokens * 1000) / qps;
    },
    forget() {},
    numRequeues() {
      return 0;
    },
  };
}

/** Combines limiters: waits as long as the slowest says; counts the most requeues any reports. */
export function maxOfRateLimiter<T = string>(...limiters: RateLimiter<T>[]): RateLimiter<T> {
  if (limiters.length === 0) throw new TypeError("Cannot combine rate limiters: none given");
  return {
    when(item) {
      // Ask every limiter, since asking is what counts the retry or reserves the token.
      let wait = 0;
      for (const limiter of limiters) wait = Math.max(wait, limiter.when(item));
      return wait;
    },
    forget(item) {
      for (const limiter of limiters) limiter.forget(item);
    },
    numRequeues(item) {
      let most = 0;
      for (const limiter of limiters) most = Math.max(most, limiter.numRequeues(item));
      return most;
    },
  };
}

/** Options of {@link defaultControllerRateLimiter}. */
export interface DefaultControllerRateLimiterOptions {
  /**
   * Time source of the bucket.
   * @default {systemClock}
   */
  clock?: Clock;
}

/**
 * The usual controller limiter: per-item exponential backoff (5 ms .. 1000 s) combined with an
 * overall bucket of 10 qps and burst 100.
 *
 * @example Per-key exponential backoff, reset when the key succeeds
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultControllerRateLimiter, RateLimitingQueue } from "@kubeloop/kubeloop";
 *
 * const limiter = defaultControllerRateLimiter();
 * assert.deepEqual([limiter.when("shop/a"), limiter.when("shop/a"), limiter.when("shop/a")], [5, 10, 20]);
 * assert.equal(limiter.when("shop/b"), 5); // keys back off independently
 * limiter.forget("shop/a");
 * assert.equal(limiter.when("shop/a"), 5);
 * // A RateLimitingQueue (and so every Controller) uses it unless told otherwise.
 * await using queue = new RateLimitingQueue<string>({ rateLimiter: defaultControllerRateLimiter() });
 * ```
 */
export function defaultControllerRateLimiter<T = string>(
  options: DefaultControllerRateLimiterOptions = {},
): RateLimiter<T> {
  return maxOfRateLimiter<T>(
    exponentialFailureRateLimiter<T>(),
    bucketRateLimiter<T>(options.clock ? { clock: options.clock } : {}),
  );
}
