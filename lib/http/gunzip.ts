import { createGunzip } from "node:zlib";
import { ProtocolError } from "./errors.ts";

/**
 * Removes a gzip content coding from a streamed body.
 *
 * kube-apiserver compresses watch responses as a series of complete gzip members, one per flush,
 * so the body is a concatenation of members. The web `DecompressionStream` stops at the end of the
 * first member and fails on the rest ("failed to write whole buffer"); Node's zlib (built into
 * Deno) decodes concatenated members, so it is used here. Output is produced as soon as each input
 * chunk decodes, and input is pulled only when the consumer reads. A corrupt body or a failed raw
 * stream destroys zlib and cancels the raw body, so its connection is closed rather than left open.
 */
export function gunzipStream(body: ReadableStream<Uint8Array>, url: string): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const zlib = createGunzip();
  const output: Uint8Array[] = [];
  let ended = false;
  let failure: Error | undefined;
  let inputDone = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  zlib.on("data", (data: Uint8Array) => {
    output.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    notify();
  });
  zlib.on("end", () => {
    ended = true;
    notify();
  });
  zlib.on("error", (err: Error) => {
    failure = new ProtocolError(`Invalid gzip response body from ${url}: ${err.message}`, url, {
      cause: err,
    });
    notify();
  });
  const settled = () => new Promise<void>((resolve) => (wake = resolve));
  // On any failure, release both ends: the raw body (which closes the socket) and zlib.
  const abandon = (reason: unknown): unknown => {
    zlib.destroy();
    reader.cancel(reason).catch(() => {
      // The raw stream already failed and closed its connection itself.
    });
    return reason;
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const next = output.shift();
        if (next) {
          controller.enqueue(next);
          return;
        }
        if (failure) throw abandon(failure);
        if (ended) {
          controller.close();
          return;
        }
        if (inputDone) {
          await settled();
          continue;
        }
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (err) {
          throw abandon(err);
        }
        const { value, done } = chunk;
        if (done) {
          inputDone = true;
          const waiting = settled();
          zlib.end();
          await waiting;
          continue;
        }
        // The write callback runs once zlib has processed the chunk, so any output is queued by then.
        await new Promise<void>((resolve) => zlib.write(value, () => resolve()));
      }
    },
    async cancel(reason) {
      zlib.destroy();
      await reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
