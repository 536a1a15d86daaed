import { withTimeout } from "../_internal/with_timeout.ts";
import type { ScrapeAuthorizer, ScrapeDecision, ScrapeRequest } from "../observe/scrape_auth.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import { DecisionCache } from "./decision_cache.ts";
import { type ReviewLane, ReviewLanes, ReviewThrottled } from "./review_lanes.ts";
import {
  type AccessReviewResult,
  type ReviewClient,
  reviewNonResourceAccess,
  reviewToken,
  type UserInfo,
} from "./reviews.ts";
import { TokenCache } from "./token_cache.ts";

/** Options of {@linkcode KubeScrapeAuthorizer}. */
export interface KubeScrapeAuthorizerOptions {
  /**
   * How long an authenticated token is trusted without asking again. After that it is re-reviewed in the
   * reserved lane (see `maxKnownInFlight`).
   * @default {60_000}
   */
  authenticatedTtlMs?: number;
  /**
   * How long a token the server rejected is rejected without asking again.
   * @default {10_000}
   */
  unauthenticatedTtlMs?: number;
  /**
   * How long an allow is remembered.
   * @default {60_000}
   */
  allowedTtlMs?: number;
  /**
   * How long a deny is remembered.
   * @default {10_000}
   */
  deniedTtlMs?: number;
  /**
   * Entries per cache: authenticated tokens, rejected tokens (held apart, so rejected ones never push out an
   * authenticated one), and access decisions.
   * @default {1024}
   */
  maxEntries?: number;
  /**
   * TokenReviews per second for tokens the API server has not authenticated before (a token bucket): the
   * bound on what a flood of made-up tokens costs the API server. Beyond it scrapes answer 429.
   * @default {5}
   */
  reviewQps?: number;
  /**
   * TokenReviews of unknown tokens that may start at once after a quiet spell.
   * @default {10}
   */
  reviewBurst?: number;
  /**
   * TokenReviews of unknown tokens in flight at once; beyond it scrapes answer 429 instead of queueing.
   * @default {4}
   */
  maxInFlight?: number;
  /**
   * Re-reviews of tokens the API server authenticated before, and SubjectAccessReviews (only authenticated
   * users reach those), in flight at once: slots of their own, which unknown tokens never take.
   * @default {4}
   */
  maxKnownInFlight?: number;
  /**
   * Bound of one review request.
   * @default {10_000}
   */
  timeoutMs?: number;
  /**
   * Token audiences TokenReview checks.
   * @default {the API server's own}
   */
  audiences?: readonly string[];
  /**
   * Time source of TTLs, the review budget and timeouts.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Failed reviews are logged here.
   * @default {noopLogger}
   */
  logger?: Logger;
}

/**
 * Authenticates a scrape's bearer token with a TokenReview and authorizes the user with a
 * SubjectAccessReview for the non-resource URL (`/metrics`, verb `get`), the way kubebuilder's secure
 * metrics filter and kube-rbac-proxy do, so access is granted with RBAC (`nonResourceURLs: ["/metrics"]`).
 *
 * Decisions are cached briefly: authenticated tokens and allows for a minute by default, rejected tokens and
 * denials for ten seconds, at most `maxEntries` each. Tokens are cached by their SHA-256, never as text.
 * A review that fails (unreachable server, timeout, 403 on the review itself) is an `error` decision and is
 * never cached, so an outage cannot turn into an allow. Identical reviews in flight are shared.
 *
 * Under a flood of made-up tokens (anyone who reaches the port can send them):
 * - an authenticated token cannot be evicted by them: authenticated and rejected tokens are held apart;
 * - they cost the API server at most `reviewQps` TokenReviews per second (bursts of `reviewBurst`) and
 *   `maxInFlight` at once; a scrape beyond that budget is `throttled` (429 with Retry-After), not queued;
 * - a token the API server authenticated before is re-reviewed, when its minute is up, in a lane of its own
 *   (`maxKnownInFlight` slots, shared with SubjectAccessReviews), so its scrapes keep working. The reviews of
 *   that lane are bounded by the callers: one per authenticated token per `authenticatedTtlMs`, one per user
 *   per `allowedTtlMs` (or `deniedTtlMs`).
 * Not covered: a token never seen before (a scraper's first, or a rotated one) competes with the flood for
 * the unknown-token budget, and may get 429s until a review slot is free.
 */
export class KubeScrapeAuthorizer implements ScrapeAuthorizer {
  readonly #client: ReviewClient;
  readonly #o: Required<
    Pick<
      KubeScrapeAuthorizerOptions,
      "authenticatedTtlMs" | "unauthenticatedTtlMs" | "allowedTtlMs" | "deniedTtlMs" | "timeoutMs"
    >
  >;
  readonly #audiences: readonly string[] | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #tokens: TokenCache;
  readonly #access: DecisionCache<AccessReviewResult>;
  readonly #lanes: ReviewLanes;
  readonly #pending = new Map<string, Promise<unknown>>();

  /**
   * Reviews go through `client` (its identity needs `create` on tokenreviews and subjectaccessreviews).
   * @throws {RangeError} for a cache size, rate or slot count that is not positive.
   */
  constructor(client: ReviewClient, options: KubeScrapeAuthorizerOptions = {}) {
    this.#client = client;
    this.#o = {
      authenticatedTtlMs: options.authenticatedTtlMs ?? 60_000,
      unauthenticatedTtlMs: options.unauthenticatedTtlMs ?? 10_000,
      allowedTtlMs: options.allowedTtlMs ?? 60_000,
      deniedTtlMs: options.deniedTtlMs ?? 10_000,
      timeoutMs: options.timeoutMs ?? 10_000,
    };
    this.#audiences = options.audiences;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
    const maxEntries = options.maxEntries ?? 1024;
    this.#tokens = new TokenCache(maxEntries, this.#clock);
    this.#access = new DecisionCache(maxEntries, this.#clock);
    this.#lanes = new ReviewLanes({
      unknownQps: options.reviewQps ?? 5,
      unknownBurst: options.reviewBurst ?? 10,
      unknownInFlight: options.maxInFlight ?? 4,
      knownInFlight: options.maxKnownInFlight ?? 4,
    }, this.#clock);
  }

  /** Decisions held in the caches (tokens of both kinds plus access decisions), at most 3 × `maxEntries`. */
  get cachedDecisions(): number {
    const { authenticated, rejected } = this.#tokens.size;
    return authenticated + rejected + this.#access.size;
  }

  /** Decides about one scrape; never throws. */
  async review(request: ScrapeRequest): Promise<ScrapeDecision> {
    let user: UserInfo;
    try {
      const key = `token:${await sha256(request.token)}`;
      // Hashes finish in any order: a scraper that went away meanwhile gets no answer, cached or not.
      request.signal?.throwIfAborted();
      const state = this.#tokens.lookup(key);
      if (state.kind === "rejected") return { kind: "unauthenticated", reason: "token not authenticated" };
      if (state.kind === "fresh") user = state.user;
      else {
        const lane = state.kind === "known" ? "known" : "unknown";
        const authn = await this.#once(key, lane, async (signal) => {
          const result = await reviewToken(this.#client, request.token, {
            signal,
            ...(this.#audiences ? { audiences: this.#audiences } : {}),
          });
          if (result.authenticated) this.#tokens.authenticated(key, result.user, this.#o.authenticatedTtlMs);
          else this.#tokens.rejected(key, this.#o.unauthenticatedTtlMs);
          return result;
        }, request.signal);
        if (!authn.authenticated) return { kind: "unauthenticated", reason: authn.reason };
        user = authn.user;
      }
    } catch (error) {
      if (error instanceof ReviewThrottled) return throttled("TokenReview", error);
      this.#logger.warn("TokenReview failed", { error: String(error) });
      return { kind: "error", reason: `TokenReview failed: ${errorText(error)}` };
    }
    let authz: AccessReviewResult;
    try {
      const key = `access:${accessKey(user, request.path, request.verb)}`;
      authz = this.#access.get(key) ?? await this.#once(key, "known", async (signal) => {
        const result = await reviewNonResourceAccess(this.#client, user, request, { signal });
        this.#access.set(key, result, result.allowed ? this.#o.allowedTtlMs : this.#o.deniedTtlMs);
        return result;
      }, request.signal);
    } catch (error) {
      if (error instanceof ReviewThrottled) return throttled("SubjectAccessReview", error);
      this.#logger.warn("SubjectAccessReview failed", { user: user.username, error: String(error) });
      return { kind: "error", reason: `SubjectAccessReview failed: ${errorText(error)}` };
    }
    if (!authz.allowed) return { kind: "forbidden", user: user.username, reason: authz.reason };
    return { kind: "allowed", user: user.username };
  }

  /** Runs `fn` once per key at a time, admitted by `lane`, within the timeout; ReviewThrottled if not admitted. */
  #once<T>(
    key: string,
    lane: ReviewLane,
    fn: (signal: AbortSignal) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const pending = this.#pending.get(key);
    if (pending) return abortable(pending as Promise<T>, signal);
    let admitted: () => void;
    try {
      admitted = this.#lanes.enter(lane);
    } catch (error) {
      return Promise.reject(error);
    }
    // The review is shared, so one scraper going away must not cancel it for the others: bounded by the
    // timeout only. `signal` is honoured for the scraper that started it by racing below.
    const run = withTimeout(fn, { timeoutMs: this.#o.timeoutMs, clock: this.#clock, what: "Review" })
      .finally(() => {
        admitted();
        this.#pending.delete(key);
      });
    this.#pending.set(key, run);
    return abortable(run, signal);
  }
}

/** `promise`, or a rejection with `signal.reason` if the signal aborts first. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function throttled(review: string, error: ReviewThrottled): ScrapeDecision {
  return {
    kind: "throttled",
    retryAfterSeconds: error.retryAfterSeconds,
    reason: `${review}: ${error.message}`,
  };
}

/** A cache key naming everything the SubjectAccessReview depends on. */
function accessKey(user: UserInfo, path: string, verb: string): string {
  const extra = Object.entries(user.extra ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([user.username, user.uid ?? "", [...(user.groups ?? [])].sort(), extra, path, verb]);
}

async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
