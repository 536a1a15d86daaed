import { ApiError } from "../client/api_error.ts";
import { ConfigError } from "../config/config_error.ts";
import type { Clock } from "../time/clock.ts";
import { Backoff, type BackoffOptions } from "../watch/backoff.ts";
import { WatchDecodeError } from "../watch/watch_decode_error.ts";

/**
 * True when `error` means the API server could not be reached or could not serve (refused or reset
 * connections, timeouts, a dead watch, 5xx, 429), as opposed to an answer that a retry will not
 * change soon (403, 404, a broken exec plugin, undecodable data).
 */
export function isUnreachable(error: Error): boolean {
  if (error instanceof ApiError) return error.code >= 500 || error.code === 429;
  return !(error instanceof WatchDecodeError || error instanceof ConfigError);
}

/**
 * An informer's retry delays, by kind of failure. While the server is unreachable the delay stays
 * short (`reconnectMaxMs`): such attempts cost the server nothing, and the cache is current again
 * within seconds of its return instead of up to `maxMs` later. Other failures back off up to `maxMs`.
 * When the kind changes (the server is back but answers 403 while its authorizer warms up) the
 * count starts over, so the first retries of the new kind come quickly and then slow down; so does a
 * connection lost after a healthy stretch of three `reconnectMaxMs`.
 */
export class RetryPolicy {
  readonly #unreachable: Backoff;
  readonly #answered: Backoff;
  #last: "unreachable" | "answered" | undefined;

  /** `options`: the informer's backoff; `reconnectMaxMs` caps it while the server is unreachable. */
  constructor(
    options: Omit<BackoffOptions, "clock" | "random"> & { clock: Clock; random?: () => number },
    reconnectMaxMs: number,
  ) {
    this.#answered = new Backoff(options);
    const initialMs = Math.min(options.initialMs ?? 800, reconnectMaxMs);
    const maxMs = Math.min(options.maxMs ?? 30_000, reconnectMaxMs);
    // Three longest delays without a failure prove the server was reachable: a connection lost after
    // such a healthy stretch is retried from `initialMs` again, not from a count grown long ago.
    const resetAfterMs = Math.min(options.resetAfterMs ?? 120_000, 3 * maxMs);
    this.#unreachable = new Backoff({ ...options, initialMs, maxMs, resetAfterMs });
  }

  /** The delay before retrying after `error`. */
  delayFor(error: Error): number {
    const kind = isUnreachable(error) ? "unreachable" : "answered";
    const backoff = kind === "unreachable" ? this.#unreachable : this.#answered;
    if (kind !== this.#last) backoff.reset();
    this.#last = kind;
    return backoff.next();
  }
}
