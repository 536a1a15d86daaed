/** One scrape to authenticate and authorize. */
export interface ScrapeRequest {
  /** The bearer token of the Authorization header; the server answers 401 itself when there is none. */
  token: string;
  /** The non-resource URL asked for, e.g. "/metrics". */
  path: string;
  /** The Kubernetes verb of the request: "get" for GET and HEAD. */
  verb: "get";
  /**
   * Stops waiting for the reviews (they are shared with other scrapes and bounded by their own timeout).
   * The metrics server passes none: reading a Deno.serve request's `signal` makes Deno 2.9 print a
   * warning about its legacy abort behaviour on the first successful response, and a scraper that
   * went away only costs a review the budget already bounds.
   * @default {never aborted}
   */
  signal?: AbortSignal | undefined;
}

/**
 * The answer about one scrape: `allowed` is served (200), `unauthenticated` answers 401, `forbidden` 403,
 * `throttled` 429 with Retry-After (the reviews it needs are over their budget: ask again later), and `error`
 * 500 (the decision could not be made, e.g. the API server is unreachable: never an allow).
 */
export type ScrapeDecision =
  | { kind: "allowed"; user: string }
  | { kind: "unauthenticated"; reason: string }
  | { kind: "forbidden"; user: string; reason: string }
  | { kind: "throttled"; retryAfterSeconds: number; reason: string }
  | { kind: "error"; reason: string };

/**
 * Authenticates and authorizes scrapes of the metrics endpoint. lib/observe only defines the shape; the
 * Kubernetes implementation (TokenReview + SubjectAccessReview, with a decision cache) lives above the
 * client in lib/auth, and the Manager passes it in. Must not throw: failures are `error` decisions.
 */
export interface ScrapeAuthorizer {
  /** Decides about one scrape. */
  review(request: ScrapeRequest): Promise<ScrapeDecision>;
}
