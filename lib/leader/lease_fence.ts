import { type Clock, systemClock } from "../time/clock.ts";
import { NotLeaderError } from "./errors.ts";

/** Options of {@linkcode LeaseFence}. */
export interface LeaseFenceOptions {
  /**
   * Must be the LeaderElector's clock: grants are absolute times on it.
   * @default {systemClock}
   */
  clock?: Clock;
}

/**
 * A local guard for writes made on behalf of a leader. A {@linkcode LeaderElector} given the fence grants
 * it, after each successful acquire or renew, until the renew deadline counted from when that request
 * STARTED; it revokes it when leading ends. {@linkcode check} compares the clock with that time at the
 * moment it is called, so it needs no timer to fire: after a process pause (SIGSTOP, a suspended VM, a
 * long GC) the first write attempted past the deadline is refused, even if nothing else has run yet.
 *
 * KubeClient's `writeFence` option calls `check` when a write is handed to the transport (after the
 * client-side rate limiter and credential refresh) and again, through the request's `beforeWrite`
 * gate, right before the first byte of the request is written to the socket: after the connection is
 * open and its TLS handshake done, in the same JavaScript task as the write call, with nothing awaited
 * in between. So a slow connect or handshake cannot carry a write past the deadline. What it does NOT
 * cover: a stop of the whole process (SIGSTOP, a suspended VM) that falls inside that one task, between
 * the check and the write system call; the time the bytes then spend on the way and in the server
 * (a write sent before the deadline may be applied after it); and a custom KubeClient `transport`
 * that does not call `beforeWrite` (only the first check applies then). The Lease's duration exceeds
 * the renew deadline, which leaves that margin before another candidate can take over (on clocks
 * that progress at similar rates).
 */
export class LeaseFence {
  readonly #clock: Clock;
  #until = Number.NEGATIVE_INFINITY;
  #lease = "";

  /** A fence that refuses every write until a LeaderElector grants it. */
  constructor(options: LeaseFenceOptions = {}) {
    this.#clock = options.clock ?? systemClock;
  }

  /** True while writes are allowed: now is before the granted deadline. */
  get valid(): boolean {
    return this.#clock.now() < this.#until;
  }

  /** Milliseconds left before writes are refused (0 when already refused). */
  get remainingMs(): number {
    return Math.max(0, this.#until - this.#clock.now());
  }

  /** Throws {@linkcode NotLeaderError} unless {@linkcode valid}. */
  check(): void {
    if (this.valid) return;
    const what = this.#lease === "" ? "a leader-election Lease" : `Lease "${this.#lease}"`;
    const why = Number.isFinite(this.#until)
      ? `its renew deadline passed ${Math.round(this.#clock.now() - this.#until)} ms ago`
      : "this process is not leading";
    throw new NotLeaderError(`Write refused: not holding ${what} (${why})`, this.#lease);
  }

  /** Allows writes until `untilMs` on the clock. Called by the LeaderElector. */
  grant(lease: string, untilMs: number): void {
    this.#lease = lease;
    this.#until = untilMs;
  }

  /** Refuses writes from now on. Called by the LeaderElector when leading ends. */
  revoke(): void {
    this.#until = Number.NEGATIVE_INFINITY;
  }
}
