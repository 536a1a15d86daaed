import type { KubeObject } from "../resources/object.ts";
import type { Clock, Timer } from "../time/clock.ts";
import type { RawWatchEvent } from "./watch_event.ts";
import type { WatchEventDecoder } from "./watch_event_decoder.ts";
import { WatchDeadlineError } from "./watch_deadline_error.ts";
import { WatchIdleTimeoutError } from "./watch_idle_timeout_error.ts";

/** Past the deadline, each wait for bytes still gets this long. */
const MIN_WAIT_MS = 1_000;

/** What one read of an open watch produces. */
export type StreamInput<T extends KubeObject> =
  | { kind: "event"; event: RawWatchEvent<T> }
  | { kind: "streamEnded"; events: number; openMs: number }
  | { kind: "streamFailed"; error: unknown };

/**
 * One open watch body: reads chunks, decodes them synchronously (no extra stream hop) and hands out
 * events one at a time. A decode error is reported only after the good events before it, so the
 * watcher resumes from the last good resourceVersion. Only time spent waiting for bytes counts against
 * the idle limit (a slow consumer is not mistaken for a dead connection); one timer checks the waits
 * until the stream ends or `close()` is called. A clean end reports how many events
 * were handed out and how long the stream was open, so the watcher can tell a hang-up from a timeout.
 * With a deadline, a stream not ended by then is given up too, again only while waiting for bytes (and
 * never sooner than a second into that wait, so an end already on its way is read, not cut); `endAt`
 * ends it cleanly at a time of the client's choosing, whether bytes are coming or not.
 */
export class WatchStreamReader<T extends KubeObject> {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder: WatchEventDecoder<T>;
  readonly #clock: Clock;
  readonly #idleMs: number;
  readonly #deadlineMs: number | undefined;
  #queue: RawWatchEvent<T>[] = [];
  #head = 0;
  readonly #openedAt: number;
  #delivered = 0;
  #final: StreamInput<T> | undefined;
  #closing: Promise<void> | undefined;
  /** Set when a timer gave the stream up: the error reported instead of whatever the read returns. */
  #expired: Error | undefined;
  /** When the client ends the stream itself (`endAt`), cleanly. */
  #endAt: number | undefined;
  #rotated = false;
  /** While a read waits for bytes: when that wait ends (clock time) and what ending it means. */
  #waitEndsAt = 0;
  #waitExpiry: (() => Error | undefined) | undefined;
  /**
   * One timer checks the waits and is kept from read to read, re-armed only when it fires early or
   * a wait must end sooner: a timer set and cancelled per chunk cost about 4 % of the client CPU of
   * a 10,000-object cold sync (bench/RESULTS.md).
   */
  #timer: Timer | undefined;
  #timerAt = 0;
  readonly #push = (event: RawWatchEvent<T>) => void this.#queue.push(event);

  constructor(
    body: ReadableStream<Uint8Array>,
    decoder: WatchEventDecoder<T>,
    options: { clock: Clock; idleMs: number; deadlineMs?: number },
  ) {
    this.#reader = body.getReader();
    this.#decoder = decoder;
    this.#clock = options.clock;
    this.#idleMs = options.idleMs;
    this.#deadlineMs = options.deadlineMs;
    this.#openedAt = options.clock.now();
  }

  /** The next event, or how the stream ended. */
  async next(): Promise<StreamInput<T>> {
    for (;;) {
      if (this.#head < this.#queue.length) {
        const event = this.#queue[this.#head++]!;
        if (this.#head === this.#queue.length) {
          this.#queue = [];
          this.#head = 0;
        }
        this.#delivered++;
        return { kind: "event", event };
      }
      if (this.#final) return this.#final;
      await this.#readChunk();
    }
  }

  async #readChunk(): Promise<void> {
    if (this.#closing || (this.#endAt !== undefined && this.#clock.now() >= this.#endAt)) {
      // Past `endAt` the stream ends even while bytes keep coming: nothing is lost, since the watcher
      // resumes from the last event handed out and the server sends the rest again.
      this.#final = this.#ended();
      this.#stopTimer();
      return;
    }
    this.#startWait();
    try {
      const { done, value } = await this.#reader.read();
      this.#waitExpiry = undefined;
      if (this.#expired) {
        this.#final = { kind: "streamFailed", error: this.#expired };
      } else if (this.#rotated) {
        this.#final = this.#ended();
      } else if (done) {
        this.#decoder.end(this.#push);
        this.#final = this.#ended();
      } else {
        this.#decoder.push(value, this.#push);
      }
    } catch (error) {
      this.#final = this.#rotated ? this.#ended() : { kind: "streamFailed", error: this.#expired ?? error };
    } finally {
      this.#waitExpiry = undefined;
      if (this.#final) this.#stopTimer();
    }
  }

  #startWait(): void {
    const now = this.#clock.now();
    const [waitMs, expiry] = this.#waitLimit(now);
    this.#waitEndsAt = now + waitMs;
    this.#waitExpiry = expiry;
    if (this.#timer === undefined || this.#timerAt > this.#waitEndsAt) {
      this.#timer?.cancel();
      this.#arm(now, this.#waitEndsAt);
    }
  }

  #arm(now: number, at: number): void {
    this.#timerAt = at;
    this.#timer = this.#clock.setTimer(this.#check, at - now);
  }

  /** The timer fired: end the wait if it has lasted its limit, re-arm if it is still short of it. */
  readonly #check = (): void => {
    this.#timer = undefined;
    const expiry = this.#waitExpiry;
    if (expiry === undefined) return; // not waiting: the next read arms the timer again
    const now = this.#clock.now();
    if (now < this.#waitEndsAt) {
      this.#arm(now, this.#waitEndsAt);
      return;
    }
    const error = expiry();
    if (error) this.#expired = error;
    else this.#rotated = true;
    this.#reader.cancel(error).catch(() => {});
  };

  #stopTimer(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  /**
   * Ends the stream cleanly at `at` (clock time), as if the server had ended it then: for a watch whose
   * server-side timeout is long, so that it is replaced as often as a short one. Events already decoded
   * are handed out first; bytes not yet read are dropped (the next watch resumes after the last event).
   */
  endAt(at: number): void {
    this.#endAt = at;
  }

  /** How long this wait for bytes may last, and the error if it lasts that long (none: a clean end). */
  #waitLimit(now: number): [number, () => Error | undefined] {
    let limit: [number, () => Error | undefined] = [
      this.#idleMs,
      () => new WatchIdleTimeoutError(this.#idleMs),
    ];
    if (this.#deadlineMs !== undefined) {
      const left = Math.max(this.#openedAt + this.#deadlineMs - now, MIN_WAIT_MS);
      if (left < limit[0]) limit = [left, () => new WatchDeadlineError(this.#clock.now() - this.#openedAt)];
    }
    if (this.#endAt !== undefined) {
      const left = Math.max(this.#endAt - now, 0);
      if (left < limit[0]) limit = [left, () => undefined];
    }
    return limit;
  }

  #ended(): StreamInput<T> {
    return { kind: "streamEnded", events: this.#delivered, openMs: this.#clock.now() - this.#openedAt };
  }

  /**
   * Cancels the body (closing the connection). Safe to call twice: every call resolves when the
   * connection is closed, so a caller that arrives second (shutdown after an abort listener) does
   * not return while the socket is still closing.
   */
  close(): Promise<void> {
    this.#stopTimer();
    return this.#closing ??= this.#cancel();
  }

  async #cancel(): Promise<void> {
    try {
      await this.#reader.cancel();
    } catch {
      // The body already failed; its error was reported through next().
    }
    this.#reader.releaseLock();
  }
}
