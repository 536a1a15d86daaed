import { withTimeout } from "../_internal/with_timeout.ts";
import type { ScrapeAuthorizer, ScrapeDecision, ScrapeRequest } from "../observe/scrape_auth.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import { DecisionCache } from "./decision_cache.ts";
import {
  type AccessReviewResult,
  type ReviewClient,
  reviewNonResourceAccess,
  reviewToken,
  type TokenReviewResult,
  type UserInfo,
} from "./reviews.ts";

/** Options of {@linkcode KubeScrapeAuthorizer}. */
export interface KubeScrapeAuthorizerOptions {
  /**
   * How long an authenticated token is trusted without asking again.
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
   * Entries per cache (tokens; users and paths).
   * @default {1024}
   */
  maxEntries?: number;
  /**
   * Reviews sent at once; scrapes beyond it get an `error` decision (500) instead of queueing.
   * @default {16}
   */
  maxInFlight?: number;
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
   * Time source of TTLs and timeouts.
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
 * Decisions are cached briefly (bounded, least recently used out first): allows and authenticated tokens
 * for a minute by default, denials for ten seconds. Tokens are cached by their SHA-256, never as text.
 * A review that fails (unreachable server, timeout, 403 on the review itself) is an `error` decision and is
 * never cached, so an outage cannot turn into an allow. Identical reviews in flight are shared, and at most
 * `maxInFlight` run at once, so unauthenticated floods cannot turn into a flood on the API server.
 */
export class KubeScrapeAuthorizer implements ScrapeAuthorizer {
  readonly #client: ReviewClient;
  readonly #o: Required<Omit<KubeScrapeAuthorizerOptions, "audiences" | "clock" | "logger">>;
  readonly #audiences: readonly string[] | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #tokens: DecisionCache<TokenReviewResult>;
  readonly #access: DecisionCache<AccessReviewResult>;
  readonly #pending = new Map<string, Promise<unknown>>();
  #inFlight = 0;

  /** Reviews go through `client` (its identity needs `create` on tokenreviews and subjectaccessreviews). */
  constructor(client: ReviewClient, options: KubeScrapeAuthorizerOptions = {}) {
    this.#client = client;
    this.#o = {
      authenticatedTtlMs: options.authenticatedTtlMs ?? 60_000,
      unauthenticatedTtlMs: options.unauthenticatedTtlMs ?? 10_000,
      allowedTtlMs: options.allowedTtlMs ?? 60_000,
      deniedTtlMs: options.deniedTtlMs ?? 10_000,
      maxEntries: options.maxEntries ?? 1024,
      maxInFlight: options.maxInFlight ?? 16,
      timeoutMs: options.timeoutMs ?? 10_000,
    };
    this.#audiences = options.audiences;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
    this.#tokens = new DecisionCache(this.#o.maxEntries, this.#clock);
    this.#access = new DecisionCache(this.#o.maxEntries, this.#clock);
  }

  /** Decisions held in the caches (tokens plus access decisions), at most twice `maxEntries`. */
  get cachedDecisions(): number {
    return this.#tokens.size + this.#access.size;
  }

  /** Decides about one scrape; never throws. */
  async review(request: ScrapeRequest): Promise<ScrapeDecision> {
    let authn: TokenReviewResult;
    try {
      const key = `token:${await sha256(request.token)}`;
      // Hashes finish in any order: a scraper that went away meanwhile gets no answer, cached or not.
      request.signal.throwIfAborted();
      authn = this.#tokens.get(key) ?? await this.#once(key, async (signal) => {
        const result = await reviewToken(this.#client, request.token, {
          signal,
          ...(this.#audiences ? { audiences: this.#audiences } : {}),
        });
        const ttl = result.authenticated ? this.#o.authenticatedTtlMs : this.#o.unauthenticatedTtlMs;
        this.#tokens.set(key, result, ttl);
        return result;
      }, request.signal);
    } catch (error) {
      this.#logger.warn("TokenReview failed", { error: String(error) });
      return { kind: "error", reason: `TokenReview failed: ${errorText(error)}` };
    }
    if (!authn.authenticated) return { kind: "unauthenticated", reason: authn.reason };
    const user = authn.user;
    let authz: AccessReviewResult;
    try {
      const key = `access:${accessKey(user, request.path, request.verb)}`;
      authz = this.#access.get(key) ?? await this.#once(key, async (signal) => {
        const result = await reviewNonResourceAccess(this.#client, user, request, { signal });
        this.#access.set(key, result, result.allowed ? this.#o.allowedTtlMs : this.#o.deniedTtlMs);
        return result;
      }, request.signal);
    } catch (error) {
      this.#logger.warn("SubjectAccessReview failed", { user: user.username, error: String(error) });
      return { kind: "error", reason: `SubjectAccessReview failed: ${errorText(error)}` };
    }
    if (!authz.allowed) return { kind: "forbidden", user: user.username, reason: authz.reason };
    return { kind: "allowed", user: user.username };
  }

  /** Runs `fn` once per key at a time, within the in-flight cap and the timeout. */
  #once<T>(key: string, fn: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
    const pending = this.#pending.get(key);
    if (pending) return abortable(pending as Promise<T>, signal);
    if (this.#inFlight >= this.#o.maxInFlight) {
      return Promise.reject(new Error(`more than ${this.#o.maxInFlight} reviews in flight`));
    }
    this.#inFlight++;
    // The review is shared, so one scraper going away must not cancel it for the others: bounded by the
    // timeout only. `signal` is honoured for the scraper that started it by racing below.
    const run = withTimeout(fn, { timeoutMs: this.#o.timeoutMs, clock: this.#clock, what: "Review" })
      .finally(() => {
        this.#inFlight--;
        this.#pending.delete(key);
      });
    this.#pending.set(key, run);
    return abortable(run, signal);
  }
}

/** `promise`, or a rejection with `signal.reason` if the signal aborts first. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
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
