import type { KubeObject } from "../resources/object.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { type Clock, sleep, systemClock } from "../time/clock.ts";
import type { WatcherEvent } from "./watcher_event.ts";

/** Options of {@linkcode Backoff}. */
export interface BackoffOptions {
  /**
   * First delay cap in ms.
   * @default {800}
   */
  readonly initialMs?: number;
  /**
   * Largest delay cap in ms.
   * @default {30000}
   */
  readonly maxMs?: number;
  /**
   * Growth of the cap per consecutive failure.
   * @default {2}
   */
  readonly factor?: number;
  /**
   * After this long without a failure the next delay starts from `initialMs` again.
   * @default {120000}
   */
  readonly resetAfterMs?: number;
  /**
   * Time source.
   * @default {systemClock}
   */
  readonly clock?: Clock;
  /**
   * Source of randomness in [0, 1).
   * @default {Math.random}
   */
  readonly random?: () => number;
}

/**
 * Exponential backoff with full jitter: the n-th consecutive delay is uniform in
 * [0, min(maxMs, initialMs * factor^n)]. Full jitter spreads reconnecting clients best (many
 * informers failing together do not hammer the server in waves). The attempt count resets once
 * `resetAfterMs` passed since the previous failure, i.e. after a healthy stretch.
 */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #factor: number;
  readonly #resetAfterMs: number;
  readonly #clock: Clock;
  readonly #random: () => number;
  #attempt = 0;
  #lastFailureAt = -Infinity;

  /** Creates a policy; throws RangeError for inconsistent options. */
  constructor(options: BackoffOptions = {}) {
    this.#initialMs = options.initialMs ?? 800;
    this.#maxMs = options.maxMs ?? 30_000;
    this.#factor = options.factor ?? 2;
    this.#resetAfterMs = options.resetAfterMs ?? 120_000;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    if (!(this.#initialMs >= 0 && this.#maxMs >= this.#initialMs && this.#factor >= 1)) {
      throw new RangeError("Cannot create backoff: need 0 <= initialMs <= maxMs and factor >= 1");
    }
  }

  /** Records a failure and returns how long to wait before the next attempt, in ms. */
  next(): number {
    const now = this.#clock.now();
    if (now - this.#lastFailureAt >= this.#resetAfterMs) this.#attempt = 0;
    this.#lastFailureAt = now;
    const cap = Math.min(this.#maxMs, this.#initialMs * this.#factor ** this.#attempt);
    if (cap < this.#maxMs) this.#attempt++;
    return Math.round(this.#random() * cap);
  }

  /** Forgets past failures. */
  reset(): void {
    this.#attempt = 0;
    this.#lastFailureAt = -Infinity;
  }
}

/** Options of {@linkcode withBackoff}. */
export interface WithBackoffOptions {
  /**
   * The policy; a fresh default {@linkcode Backoff} on `clock` when omitted.
   * @default {a new Backoff with its defaults on clock}
   */
  readonly backoff?: Backoff;
  /**
   * Ends the iteration (no error) when aborted, also during a sleep.
   * @default {never aborted}
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Time source for the sleeps.
   * @default {systemClock}
   */
  readonly clock?: Clock;
  /**
   * Failures are logged at warn level.
   * @default {noopLogger}
   */
  readonly logger?: Logger;
  /**
   * Called for every error before sleeping (metrics).
   * @default {none}
   */
  readonly onError?: (error: Error, delayMs: number) => void;
  /**
   * Picks the delay after `error` instead of `backoff` (a policy per kind of failure).
   * @default {backoff's next delay for every error}
   */
  readonly delayFor?: (error: Error) => number;
}

/**
 * Passes `source`'s events through and, after each `error` event (which it still yields), sleeps for
 * the backoff's delay before pulling again. Policy apart from mechanism: the watcher never sleeps.
 *
 * @example Retry a failing watch with growing, jittered pauses
 * ```ts
 * import assert from "node:assert/strict";
 * import { ApiError, Backoff, KubeClient, loadConfig, watcher, withBackoff } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * // A custom resource whose CRD is not installed: every list fails with 404 Not Found.
 * const widgets = {
 *   group: "example.com",
 *   version: "v1",
 *   plural: "widgets",
 *   kind: "Widget",
 *   namespaced: true,
 * };
 * const backoff = new Backoff({ initialMs: 20, maxMs: 1_000 }); // the defaults suit programs: 800 ms .. 30 s
 * const stop = new AbortController();
 * let failures = 0;
 * for await (const event of withBackoff(watcher(client, widgets), { backoff, signal: stop.signal })) {
 *   if (event.type !== "error") continue;
 *   assert.ok(event.error instanceof ApiError && event.error.isNotFound);
 *   if (++failures === 3) stop.abort(); // ends the loop, also during a pause
 * }
 * assert.equal(failures, 3);
 * ```
 */
export async function* withBackoff<T extends KubeObject>(
  source: AsyncIterable<WatcherEvent<T>>,
  options: WithBackoffOptions = {},
): AsyncGenerator<WatcherEvent<T>, void, undefined> {
  const { signal, clock = systemClock, logger = noopLogger } = options;
  const backoff = options.backoff ?? new Backoff({ clock });
  for await (const event of source) {
    yield event;
    if (event.type !== "error") continue;
    const delayMs = options.delayFor ? options.delayFor(event.error) : backoff.next();
    logger.warn("Watch failed; retrying", { error: event.error.message, delayMs });
    options.onError?.(event.error, delayMs);
    try {
      await sleep(delayMs, { clock, ...(signal ? { signal } : {}) });
    } catch {
      return; // aborted: shutdown is not an error
    }
  }
}
