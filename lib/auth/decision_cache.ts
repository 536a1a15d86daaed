import type { Clock } from "../time/clock.ts";

/**
 * A small cache of decisions: each entry expires after its own TTL, and past `maxEntries` the least recently
 * used entry goes, so a flood of distinct keys (random tokens) costs bounded memory.
 */
export class DecisionCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();
  readonly #max: number;
  readonly #clock: Clock;

  /** A cache of at most `maxEntries` entries, timed by `clock`. */
  constructor(maxEntries: number, clock: Clock) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
    }
    this.#max = maxEntries;
    this.#clock = clock;
  }

  /** The live entry of `key`, refreshed as most recently used; undefined when absent or expired. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expires <= this.#clock.now()) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` for `ttlMs`; a TTL of 0 or less stores nothing. */
  set(key: string, value: V, ttlMs: number): void {
    this.#entries.delete(key);
    if (ttlMs <= 0) return;
    while (this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expires: this.#clock.now() + ttlMs });
  }

  /** Entries held (expired ones included until they are touched or pushed out). */
  get size(): number {
    return this.#entries.size;
  }
}
