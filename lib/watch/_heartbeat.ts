import type { KubeObject } from "../resources/object.ts";
import { isInitialEventsEnd, type RawWatchEvent } from "./watch_event.ts";

/** A bookmark counts as periodic when it arrives this long after its watch opened. */
const PERIODIC_AFTER_MS = 30_000;
/** Silent timeouts, with no event in between and no periodic bookmark ever, before the long bound applies. */
const STRIKES = 2;

/**
 * Decides how long a watch may stay silent. kube-apiserver sends a BOOKMARK about once a minute on
 * every watch served from its watch cache (that is, of almost every resource), so for those a
 * connection silent for `heartbeatMs` is dead — a half-open TCP connection, a proxy that lost its
 * state — and is replaced then, instead of after the watch's whole `timeoutSeconds` plus margin. It
 * matters for long watches (the streaming list's 5 to 10 minutes, or a caller's own range); the default
 * watches of 15 to 30 s are given up sooner by their deadline. Resources served without a watch cache get no periodic bookmarks:
 * after two silent timeouts with no event at all in between (a quiet resource, not a dead
 * connection: a resumed watch replays what the dead one missed) and no periodic bookmark ever seen,
 * the long bound is used. A periodic bookmark seen at any time brings the short bound back.
 */
export class WatchHeartbeat {
  readonly #heartbeatMs: number;
  #seen = false;
  #strikes = 0;
  #openedAt = 0;
  #usedShort = false;

  /** `heartbeatMs`: the short bound; 0 turns it off. */
  constructor(heartbeatMs: number) {
    this.#heartbeatMs = heartbeatMs;
  }

  /** A stream opened at `now`: the idle bound it gets, given the long one. */
  opened(now: number, longMs: number): number {
    this.#openedAt = now;
    const short = this.#heartbeatMs > 0 && this.#heartbeatMs < longMs &&
      (this.#seen || this.#strikes < STRIKES);
    this.#usedShort = short;
    return short ? this.#heartbeatMs : longMs;
  }

  /** An event arrived at `now`. */
  observe(event: RawWatchEvent<KubeObject>, now: number): void {
    if (event.type !== "BOOKMARK") {
      // The resource is not quiet: a silence before this was the connection's, not the server's.
      if (event.type !== "ERROR") this.#strikes = 0;
      return;
    }
    if (isInitialEventsEnd(event)) return;
    if (now - this.#openedAt >= PERIODIC_AFTER_MS) {
      this.#seen = true;
      this.#strikes = 0;
    }
  }

  /**
   * The stream was silent past its bound. Returns a notice when this was the last strike and the
   * long bound applies from now on.
   */
  silent(): string | undefined {
    if (!this.#usedShort || this.#seen) return undefined;
    this.#strikes++;
    return this.#strikes === STRIKES
      ? "No periodic bookmarks from the server for this resource; a silent watch is now kept until its timeout"
      : undefined;
  }
}
