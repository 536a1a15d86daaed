import type { KubeObject } from "../client/types.ts";
import type { WatchEvent } from "./watch_event.ts";
import { type WatchDecoderOptions, WatchEventDecoder } from "./watch_event_decoder.ts";

/**
 * Turns the raw bytes of a watch response into {@linkcode WatchEvent}s.
 *
 * Chunks may be split anywhere, including inside a multi-byte UTF-8 character. Blank lines are
 * skipped; lines are bounded by `maxLineBytes`. A bad line errors the stream with a
 * `WatchDecodeError` (never dropped). At the end, an unterminated final line is accepted when it
 * parses and reported as "truncated" when it does not. See {@linkcode WatchEventDecoder}.
 *
 * Note: when a chunk holds good events followed by a bad line, the Streams machinery discards queued
 * but unread chunks as the stream errors, so the reader may not see those good events. Resume from the
 * last resourceVersion you did see and they are sent again; use `WatchEventDecoder` directly (as the
 * watcher does) to get every event before the error.
 *
 * @example
 * ```ts ignore
 * const events = (await client.watch(ref, opts)).pipeThrough(new WatchDecoderStream());
 * ```
 */
export class WatchDecoderStream<T extends KubeObject = KubeObject>
  extends TransformStream<Uint8Array, WatchEvent<T>> {
  /** Creates a decoder stream; throws RangeError for a bad `maxLineBytes`. */
  constructor(options: WatchDecoderOptions = {}) {
    const decoder = new WatchEventDecoder<T>(options);
    super({
      transform(chunk, controller) {
        decoder.push(chunk, (event) => controller.enqueue(event));
      },
      flush(controller) {
        decoder.end((event) => controller.enqueue(event));
      },
    });
  }
}
