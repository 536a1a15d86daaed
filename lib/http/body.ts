import { ChunkedDecoder } from "./chunked_decoder.ts";
import type { Connection } from "./connection.ts";
import { BodyTooLargeError, HttpError, ProtocolError } from "./errors.ts";
import { gunzipStream } from "./gunzip.ts";
import type { ResponseHead } from "./response_head.ts";
import { assertNever } from "../_internal/assert_never.ts";

/** How the response body is delimited (RFC 9112 section 6.3). */
export type BodyFraming =
  | { readonly kind: "none" }
  | { readonly kind: "length"; readonly length: number }
  | { readonly kind: "chunked" }
  | { readonly kind: "close" };

const NONE: BodyFraming = { kind: "none" };
const CHUNKED: BodyFraming = { kind: "chunked" };
const CLOSE: BodyFraming = { kind: "close" };

/**
 * Decides how the body of `head` is delimited for a request with `method`.
 * @throws {ProtocolError} on an invalid or conflicting Content-Length.
 */
export function bodyFraming(method: string, head: ResponseHead, url: string): BodyFraming {
  const status = head.status;
  if (method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200)) return NONE;
  const te = head.headers.get("transfer-encoding");
  if (te !== null) {
    // Only a final "chunked" tells where the body ends; any other coding runs to the close.
    return /(?:^|,)\s*chunked\s*$/i.test(te) ? CHUNKED : CLOSE;
  }
  const cl = head.headers.get("content-length");
  if (cl === null) return CLOSE;
  // Headers joins repeated fields with ", "; identical repeats are allowed, different ones are not.
  const values = cl.split(",").map((v) => v.trim());
  const first = values[0]!;
  if (!/^\d{1,15}$/.test(first) || values.some((v) => v !== first)) {
    throw new ProtocolError(
      `Invalid response from ${url}: invalid Content-Length ${JSON.stringify(cl.slice(0, 100))}`,
      url,
    );
  }
  const length = Number(first);
  return length === 0 ? NONE : { kind: "length", length };
}

/** Called once when the body ends: `reusable` is true only if it was read exactly to its end. */
export type BodyDone = (reusable: boolean) => void;

/**
 * A stream of the raw (de-chunked, still content-encoded) body read from `conn`. It pulls only
 * when the consumer reads. Cancelling it, or any error, closes the connection.
 */
export function rawBodyStream(
  conn: Connection,
  framing: BodyFraming,
  url: string,
  done: BodyDone,
): ReadableStream<Uint8Array> {
  let finished = false;
  const finish = (reusable: boolean) => {
    if (finished) return;
    finished = true;
    done(reusable);
  };
  let remaining = framing.kind === "length" ? framing.length : 0;
  const chunked = framing.kind === "chunked" ? new ChunkedDecoder(url) : undefined;

  const pull = async (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> => {
    try {
      switch (framing.kind) {
        case "none":
          controller.close();
          finish(true);
          return;
        case "length": {
          const chunk = await conn.read();
          if (chunk === null) throw truncated(url, `${remaining} of ${framing.length} bytes missing`);
          const take = Math.min(remaining, chunk.length);
          conn.unread(chunk.subarray(take));
          remaining -= take;
          controller.enqueue(chunk.slice(0, take));
          if (remaining === 0) {
            controller.close();
            finish(true);
          }
          return;
        }
        case "chunked": {
          for (;;) {
            const chunk = await conn.read();
            if (chunk === null) throw truncated(url, "the stream ended inside the chunked body");
            const data = chunked!.decode(chunk);
            if (chunked!.done) conn.unread(chunk.subarray(chunked!.consumed));
            if (data !== null) controller.enqueue(data);
            if (chunked!.done) {
              controller.close();
              finish(true);
              return;
            }
            if (data !== null) return;
          }
        }
        case "close": {
          const chunk = await conn.read();
          if (chunk === null) {
            controller.close();
            finish(false);
          } else controller.enqueue(chunk.slice());
          return;
        }
        default:
          assertNever(framing);
      }
    } catch (err) {
      conn.close();
      finish(false);
      throw err;
    }
  };

  return new ReadableStream<Uint8Array>({
    pull,
    cancel() {
      conn.close();
      finish(false);
    },
  }, { highWaterMark: 0 });
}

/**
 * Removes a gzip content coding (the only one the client asks for; concatenated members included);
 * other codings pass through. Corrupt gzip data becomes a ProtocolError naming `url`.
 */
export function decodeContent(
  body: ReadableStream<Uint8Array>,
  headers: Headers,
  url: string,
): ReadableStream<Uint8Array> {
  const coding = headers.get("content-encoding")?.trim().toLowerCase();
  if (coding !== "gzip" && coding !== "x-gzip") return body;
  return gunzipStream(body, url);
}

function truncated(url: string, what: string): HttpError {
  return new ProtocolError(`Truncated response body from ${url}: ${what}`, url);
}

/**
 * Passes `body` through while counting its bytes (decoded ones, when `decoded` says gzip was
 * removed); past `limit` it cancels `body` (closing the connection) and fails with a
 * BodyTooLargeError. Pulls only when its reader does, so it buffers nothing itself.
 */
export function capBody(
  body: ReadableStream<Uint8Array>,
  limit: number,
  url: string,
  decoded: boolean,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      total += value.length;
      if (total > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge(url, limit, decoded);
      }
      controller.enqueue(value);
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/** The error for a body from `url` over `limit` bytes. */
export function tooLarge(url: string, limit: number, decoded: boolean): BodyTooLargeError {
  const what = decoded ? "after gzip decoding " : "";
  return new BodyTooLargeError(
    `Response body from ${url} is larger ${what}than maxBodyBytes (${limit} bytes)`,
    url,
    limit,
  );
}
