import type { KubeObject } from "../client/types.ts";
import type { Clock, Timer } from "../time/clock.ts";
import type { WatchEvent } from "./watch_event.ts";
import type { WatchEventDecoder } from "./watch_event_decoder.ts";
import { WatchIdleTimeoutError } from "./watch_idle_timeout_error.ts";

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
 */
export class WatchStreamReader<T extends KubeObject> {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder: WatchEventDecoder<T>;
  readonly #clock: Clock;
  readonly #idleMs: number;
  #queue: WatchEvent<T>[] = [];
  #head = 0;
  readonly #openedAt: number;
  #delivered = 0;
  #final: StreamInput<T> | undefined;
  #closing: Promise<void> | undefined;
  #idle = false;
  readonly #push = (event: WatchEvent<T>) => void this.#queue.push(event);

  constructor(
    body: ReadableStream<Uint8Array>,
    decoder: WatchEventDecoder<T>,
    options: { clock: Clock; idleMs: number },
  ) {
    this.#reader = body.getReader();
    this.#decoder = decoder;
    this.#clock = options.clock;
    this.#idleMs = options.idleMs;
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
    if (this.#closing) {
      this.#final = this.#ended();
      return;
    }
    timer = this.#clock.setTimer(() => {
      this.#idle = true;
      this.#reader.cancel(new WatchIdleTimeoutError(this.#idleMs)).catch(() => {});
    }, this.#idleMs);
    try {
      const { done, value } = await this.#reader.read();
      timer.cancel();
      timer = undefined;
      if (this.#idle) {
        this.#final = { kind: "streamFailed", error: new WatchIdleTimeoutError(this.#idleMs) };
      } else if (done) {
        this.#decoder.end(this.#push);
        this.#final = this.#ended();
      } else {
        this.#decoder.push(value, this.#push);
      }
    } catch (error) {
      this.#final = {
        kind: "streamFailed",
        error: this.#idle ? new WatchIdleTimeoutError(this.#idleMs) : error,
      };
    } finally {
      timer?.cancel();
    }
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
