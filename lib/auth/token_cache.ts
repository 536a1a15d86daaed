import type { Clock } from "../time/clock.ts";
import type { UserInfo } from "./reviews.ts";

/** What a {@linkcode TokenCache} knows about one token. */
export type TokenState =
  | { kind: "fresh"; user: UserInfo }
  | { kind: "known" }
  | { kind: "rejected" }
  | { kind: "unknown" };

/**
 * What the API server said about tokens, by key (a hash, never the token), in two separate bounded maps so
 * that tokens the server rejected can never push out one it authenticated:
 * - **authenticated**: entered only after a TokenReview said so. Trusted for `ttl`; after that the token is
 *   still `known` (a re-review is needed, and gets the reserved lane) until it is pushed out, least recently
 *   used first, by other *authenticated* tokens, or a re-review rejects it. A flood of random tokens cannot
 *   touch it.
 * - **rejected**: a key and an expiry, nothing else (about 150 bytes); least recently used out first once
 *   `maxEntries` are held, so a flood of random tokens costs bounded memory and only evicts its own kind.
 */
export class TokenCache {
  readonly #authenticated = new Map<string, { user: UserInfo; freshUntil: number }>();
  readonly #rejected = new Map<string, number>();
  readonly #max: number;
  readonly #clock: Clock;

  /** At most `maxEntries` tokens of each kind, timed by `clock`. */
  constructor(maxEntries: number, clock: Clock) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
    }
    this.#max = maxEntries;
    this.#clock = clock;
  }

  /** The state of `key`; a hit refreshes its place in its map. */
  lookup(key: string): TokenState {
    const now = this.#clock.now();
    const entry = this.#authenticated.get(key);
    if (entry) {
      this.#authenticated.delete(key);
      this.#authenticated.set(key, entry);
      return entry.freshUntil > now ? { kind: "fresh", user: entry.user } : { kind: "known" };
    }
    const until = this.#rejected.get(key);
    if (until === undefined) return { kind: "unknown" };
    this.#rejected.delete(key);
    if (until <= now) return { kind: "unknown" };
    this.#rejected.set(key, until);
    return { kind: "rejected" };
  }

  /** Records that the API server authenticated `key` as `user`, trusted for `ttlMs`. */
  authenticated(key: string, user: UserInfo, ttlMs: number): void {
    this.#rejected.delete(key);
    this.#authenticated.delete(key);
    setBounded(this.#authenticated, key, { user, freshUntil: this.#clock.now() + ttlMs }, this.#max);
  }

  /** Records that the API server rejected `key`, for `ttlMs` (0 or less: forgets it only). */
  rejected(key: string, ttlMs: number): void {
    this.#authenticated.delete(key);
    this.#rejected.delete(key);
    if (ttlMs > 0) setBounded(this.#rejected, key, this.#clock.now() + ttlMs, this.#max);
  }

  /** Tokens held: authenticated (fresh or known) and rejected (expired ones until touched or pushed out). */
  get size(): { authenticated: number; rejected: number } {
    return { authenticated: this.#authenticated.size, rejected: this.#rejected.size };
  }
}

/** Sets `key` last, first dropping the least recently used entries beyond `max`. */
function setBounded<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  while (map.size >= max) {
    const oldest = map.keys().next();
    if (oldest.done) break;
    map.delete(oldest.value);
  }
  map.set(key, value);
}
