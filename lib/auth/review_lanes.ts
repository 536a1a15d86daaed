import type { Clock } from "../time/clock.ts";

/** Which reviews share a budget: tokens never authenticated before, or known tokens and access reviews. */
export type ReviewLane = "unknown" | "known";

/** A review its lane has no room for now. */
export class ReviewThrottled extends Error {
  /** The lane that refused. */
  readonly lane: ReviewLane;
  /** Whole seconds (at least 1) after which the lane may have room. */
  readonly retryAfterSeconds: number;

  /** `limit` names the bound reached ("in flight" or "per second"). */
  constructor(lane: ReviewLane, limit: string, retryAfterSeconds: number) {
    super(`the review budget of ${lane} tokens is spent (${limit})`);
    this.name = "ReviewThrottled";
    this.lane = lane;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The budgets of {@linkcode ReviewLanes}. */
export interface ReviewLaneLimits {
  /** TokenReviews per second for unknown tokens (a token bucket). */
  readonly unknownQps: number;
  /** Reviews of unknown tokens that may start at once after a quiet spell. */
  readonly unknownBurst: number;
  /** Reviews of unknown tokens in flight at once. */
  readonly unknownInFlight: number;
  /** Re-reviews of known tokens and SubjectAccessReviews in flight at once. */
  readonly knownInFlight: number;
}

/**
 * Admission of reviews to the API server, in two lanes that never share a slot. Unknown tokens (anything a
 * scraper makes up) get a token bucket and a few slots; tokens the API server authenticated before, and
 * SubjectAccessReviews (only authenticated users reach those), get slots of their own, so a flood of made-up
 * tokens cannot take them. Nothing waits: a review that cannot start now is refused with the seconds after
 * which it may (the scrape answers 429 with Retry-After), so a flood holds no memory and no sockets here.
 * The known lane's slots also hold SubjectAccessReviews: "known" means a caller the API server authenticated.
 */
export class ReviewLanes {
  readonly #limits: ReviewLaneLimits;
  readonly #clock: Clock;
  readonly #inFlight = { unknown: 0, known: 0 };
  #tokens: number;
  #last: number;

  /** Lanes with these `limits`, the bucket full; RangeError for a limit that is not positive. */
  constructor(limits: ReviewLaneLimits, clock: Clock) {
    const { unknownQps, unknownBurst, unknownInFlight, knownInFlight } = limits;
    if (!(unknownQps > 0) || !Number.isFinite(unknownQps)) {
      throw new RangeError(`reviewQps must be a positive number, got ${unknownQps}`);
    }
    for (
      const [name, value] of [["reviewBurst", unknownBurst], ["maxInFlight", unknownInFlight], [
        "maxKnownInFlight",
        knownInFlight,
      ]] as const
    ) {
      if (!Number.isInteger(value) || value < 1) {
        throw new RangeError(`${name} must be an integer >= 1, got ${value}`);
      }
    }
    this.#limits = limits;
    this.#clock = clock;
    this.#tokens = unknownBurst;
    this.#last = clock.now();
  }

  /**
   * Starts a review in `lane` and returns the function to call when it has finished.
   * @throws {ReviewThrottled} with the whole seconds (at least 1) after which to try again.
   */
  enter(lane: ReviewLane): () => void {
    const limit = lane === "unknown" ? this.#limits.unknownInFlight : this.#limits.knownInFlight;
    if (this.#inFlight[lane] >= limit) throw new ReviewThrottled(lane, "in flight", 1);
    if (lane === "unknown") {
      const now = this.#clock.now();
      const { unknownQps: qps, unknownBurst: burst } = this.#limits;
      this.#tokens = Math.min(burst, this.#tokens + (Math.max(0, now - this.#last) / 1000) * qps);
      this.#last = now;
      if (this.#tokens < 1) {
        throw new ReviewThrottled(lane, "per second", Math.max(1, Math.ceil((1 - this.#tokens) / qps)));
      }
      this.#tokens -= 1;
    }
    this.#inFlight[lane]++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#inFlight[lane]--;
    };
  }

  /** Reviews in flight per lane. */
  get inFlight(): { unknown: number; known: number } {
    return { ...this.#inFlight };
  }
}
