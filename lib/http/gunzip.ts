import { GzipDecoder } from "../gzip/members.ts";
import { InflateError } from "../gzip/inflate.ts";
import { ProtocolError } from "./errors.ts";

/**
 * Removes a gzip content coding from a streamed body.
 *
 * kube-apiserver compresses watch responses as a series of complete gzip members, one per flush,
 * so the body is a concatenation of members. The web `DecompressionStream` fails on the second
 * member ("failed to write whole buffer") and cannot say where a member ended, and Node's zlib
 * would load Deno's whole Node compatibility layer (several MB of memory) into the controller, so
 * the body is decoded by our own gzip decoder. Input is pulled only when the consumer reads, and
 * each read gets at most 16 KiB of output, as soon as it decodes: a small gzip bomb never becomes
 * a large buffer, and `maxBodyBytes` (counted after decoding) stops it. A corrupt body or a failed
 * raw stream cancels the raw body, so its connection is closed rather than left open. An empty body
 * decodes to nothing, as in Go's HTTP client.
 */
export function gunzipStream(body: ReadableStream<Uint8Array>, url: string): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new GzipDecoder();
  let inputDone = false;
  // On any failure, release the raw body, which closes the socket.
  const abandon = (reason: unknown): unknown => {
    reader.cancel(reason).catch(() => {
      // The raw stream already failed and closed its connection itself.
    });
    return reason;
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        let out: Uint8Array | null;
        try {
          if (inputDone) decoder.finish();
          out = inputDone ? null : decoder.read();
        } catch (err) {
          throw abandon(
            err instanceof InflateError
              ? new ProtocolError(`Invalid gzip response body from ${url}: ${err.message}`, url, {
                cause: err,
              })
              : err,
          );
        }
        if (out) {
          controller.enqueue(out);
          return;
        }
        if (inputDone) {
          controller.close();
          return;
        }
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (err) {
          throw abandon(err);
        }
        if (chunk.done) inputDone = true;
        else decoder.push(chunk.value);
      }
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
