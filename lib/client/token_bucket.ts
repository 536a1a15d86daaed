import { type Clock, sleep, systemClock } from "../time/clock.ts";

/**
 * A client-side request limiter: `qps` tokens per second, holding at most `burst`.
 * Off by default in KubeClient, as in controller-runtime, which relies on the server's
 * API Priority and Fairness instead.
 */
export class TokenBucket {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  /** A full bucket; RangeError for a non-positive qps or burst. */
  constructor(qps: number, burst: number, clock: Clock = systemClock) {
    if (!(qps > 0) || !Number.isFinite(qps)) {
      throw new RangeError(`qps must be a positive number, got ${qps}`);
    }
    if (!Number.isInteger(burst) || burst < 1) {
      throw new RangeError(`burst must be an integer >= 1, got ${burst}`);
    }
    this.#qps = qps;
    this.#burst = burst;
    this.#clock = clock;
    this.#tokens = burst;
    this.#last = clock.now();
  }

  /** Waits until a token is available and takes it. Tokens are reserved in call order. */
  async take(signal?: AbortSignal): Promise<void> {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#qps);
    this.#last = now;
    this.#tokens -= 1;
    if (this.#tokens >= 0) return;
    const waitMs = (-this.#tokens / this.#qps) * 1000;
    const options = signal ? { signal, clock: this.#clock } : { clock: this.#clock };
    await sleep(waitMs, options);
  }
}
