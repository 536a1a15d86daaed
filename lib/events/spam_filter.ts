import type { Clock } from "../time/clock.ts";

/** Options of {@linkcode SpamFilter}. */
export interface SpamFilterOptions {
  /**
   * Events allowed in a burst per key.
   * @default {25}
   */
  burst?: number;
  /**
   * One token comes back every this many milliseconds.
   * @default {300_000 (5 minutes)}
   */
  refillMs?: number;
  /**
   * Keys remembered; the least recently used is forgotten first.
   * @default {4096}
   */
  maxKeys?: number;
}

/**
 * A token bucket per key (the involved object), so one misbehaving object cannot flood the API server
 * with Events. Buckets refill lazily from the clock; no timers.
 */
export class SpamFilter {
  #burst: number;
  #refillMs: number;
  #maxKeys: number;
  #clock: Clock;
  #buckets = new Map<string, { tokens: number; at: number }>();

  /** Creates the instance; see the options type for defaults. */
  constructor(clock: Clock, options: SpamFilterOptions = {}) {
    this.#burst = options.burst ?? 25;
    this.#refillMs = options.refillMs ?? 300_000;
    this.#maxKeys = options.maxKeys ?? 4096;
    if (this.#burst < 1 || this.#refillMs <= 0 || this.#maxKeys < 1) {
      throw new RangeError("SpamFilter needs burst >= 1, refillMs > 0 and maxKeys >= 1");
    }
    this.#clock = clock;
  }

  /** Takes a token for `key`; false means the event must be dropped. */
  allow(key: string): boolean {
    const now = this.#clock.now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    this.#buckets.delete(key);
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.at) / this.#refillMs);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > this.#maxKeys) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
