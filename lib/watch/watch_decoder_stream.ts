import type { KubeObject } from "../resources/object.ts";
import type { RawWatchEvent } from "./watch_event.ts";
import { type WatchDecoderOptions, WatchEventDecoder } from "./watch_event_decoder.ts";

/**
 * Turns the raw bytes of a watch response into {@linkcode RawWatchEvent}s; use it with `pipeThrough`.
 *
 * Chunks may be split anywhere, including inside a multi-byte UTF-8 character. Blank lines are
 * skipped; lines are bounded by `maxLineBytes`. At the end, an unterminated final line is accepted when
 * it parses and reported as "truncated" when it does not. See {@linkcode WatchEventDecoder}.
 *
 * Errors are surfaced, never dropped, and never overtake events: when a chunk holds good events and then
 * a bad line, the reader gets those events first and then the `WatchDecodeError`. The same holds for an
 * error of the byte source (a failed connection). The writable side fails at once, so a pipe stops
 * reading (and cancels) its source; cancelling the readable side does the same.
 *
 * Backpressure: bytes are decoded one chunk at a time, and the next chunk is taken only once the reader
 * has consumed the events of the previous one.
 *
 * Like `TextDecoderStream`, this is a readable/writable pair rather than a `TransformStream` subclass: a
 * transform stream discards its queued events when it errors, which would break the guarantee above.
 *
 * @example Decode the body of a watch request
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONFIG_MAPS } from "@kubeloop/kubeloop";
 * import { FakeApi } from "@kubeloop/kubeloop/testing";
 *
 * const api = new FakeApi(); // or a KubeClient: `watch` returns the raw bytes
 * api.seed(CONFIG_MAPS, { metadata: { name: "a", namespace: "default" } });
 * const body = await api.watch(CONFIG_MAPS, { resourceVersion: "0" }); // from "0": an ADDED per object
 * const events = body.pipeThrough(new WatchDecoderStream()).getReader();
 * const { value: event } = await events.read();
 * assert.equal(event?.type, "ADDED");
 * await events.cancel(); // closes the watch
 * ```
 */
export class WatchDecoderStream<T extends KubeObject = KubeObject>
  implements ReadableWritablePair<RawWatchEvent<T>, Uint8Array> {
  /** The decoded events. */
  readonly readable: ReadableStream<RawWatchEvent<T>>;
  /** Takes the raw bytes of the watch response. */
  readonly writable: WritableStream<Uint8Array>;

  /** Creates a decoder stream; throws RangeError for a bad `maxLineBytes`. */
  constructor(options: WatchDecoderOptions = {}) {
    const decoder = new WatchEventDecoder<T>(options);
    let out!: ReadableStreamDefaultController<RawWatchEvent<T>>;
    let input!: WritableStreamDefaultController;
    /** An error waiting for the reader to take the events queued before it. */
    let held: { error: unknown } | undefined;
    /** Lets a write that waits for the reader go on. */
    let wake: (() => void) | undefined;
    const enqueue = (event: RawWatchEvent<T>) => out.enqueue(event);
    /** With a high-water mark of 0, a negative desired size means events are queued. */
    const queued = () => (out.desiredSize ?? 0) < 0;
    const fail = (error: unknown) => {
      if (held) return;
      if (queued()) held = { error };
      else out.error(error);
    };
    const decode = (step: () => void) => {
      try {
        step();
      } catch (error) {
        fail(error);
        throw error;
      }
    };

    this.readable = new ReadableStream<RawWatchEvent<T>>({
      start(controller) {
        out = controller;
      },
      // Called when the reader waits on an empty queue.
      pull(controller) {
        if (held) {
          controller.error(held.error);
          return;
        }
        wake?.();
        wake = undefined;
      },
      cancel(reason) {
        input.error(reason);
        wake?.();
        wake = undefined;
      },
    }, { highWaterMark: 0 });

    this.writable = new WritableStream<Uint8Array>({
      start(controller) {
        input = controller;
      },
      write(chunk) {
        decode(() => decoder.push(chunk, enqueue));
        if (!queued()) return;
        return new Promise<void>((resolve) => wake = resolve);
      },
      close() {
        decode(() => decoder.end(enqueue));
        out.close();
      },
      abort(reason) {
        fail(reason);
      },
    });
  }
}
