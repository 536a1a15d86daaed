import type { KubeObject } from "../client/types.ts";
import type { Clock, Timer } from "../time/clock.ts";
import type { WatchEvent } from "./watch_event.ts";
import type { WatchEventDecoder } from "./watch_event_decoder.ts";
import { WatchDeadlineError } from "./watch_deadline_error.ts";
import { WatchIdleTimeoutError } from "./watch_idle_timeout_error.ts";

/** Past the deadline, each wait for bytes still gets this long. */
const MIN_WAIT_MS = 1_000;

/** What one read of an open watch produces. */
export type StreamInput<T extends KubeObject> =
  | { kind: "event"; event: WatchEvent<T> }
  | { kind: "streamEnded"; events: number; openMs: number }
  | { kind: "streamFailed"; error: unknown };

/**
 * One open watch body: reads chunks, decodes them synchronously (no extra stream hop) and hands out
 * events one at a time. A decode error is reported only after the good events before it, so the
 * watcher resumes from the last good resourceVersion. An idle timer runs only while waiting for
 * bytes (a slow consumer is not mistaken for a dead connection). A clean end reports how many events
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
  #queue: WatchEvent<T>[] = [];
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
  readonly #push = (event: WatchEvent<T>) => void this.#queue.push(event);

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
    let timer: Timer | undefined;
    if (this.#closing || (this.#endAt !== undefined && this.#clock.now() >= this.#endAt)) {
      // Past `endAt` the stream ends even while bytes keep coming: nothing is lost, since the watcher
      // resumes from the last event handed out and the server sends the rest again.
      this.#final = this.#ended();
      return;
    }
    const [waitMs, expiry] = this.#waitLimit();
    timer = this.#clock.setTimer(() => {
      const error = expiry();
      if (error) this.#expired = error;
      else this.#rotated = true;
      this.#reader.cancel(error).catch(() => {});
    }, waitMs);
    try {
      const { done, value } = await this.#reader.read();
      timer.cancel();
      timer = undefined;
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
      timer?.cancel();
    }
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
  #waitLimit(): [number, () => Error | undefined] {
    const now = this.#clock.now();
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
