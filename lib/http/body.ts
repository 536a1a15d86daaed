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
 * Decides how the body of `head` is delimited for a request with `method`. The framing fields are
 * checked whatever the status, as in Go's net/http: at most one Transfer-Encoding field, and it must
 * be "chunked" (as in Go and nginx: no other coding is supported, and a list is where request
 * smuggling hides); Content-Length fields must be equal, each a plain decimal number below 2^63; with
 * both, chunked wins. Stricter than Go, Transfer-Encoding in an HTTP/1.0 response is refused (RFC 9112
 * section 6.1 calls such framing faulty; Go ignores the field).
 * @throws {ProtocolError} on invalid or conflicting framing fields.
 */
export function bodyFraming(method: string, head: ResponseHead, url: string): BodyFraming {
  const invalid = (what: string) => new ProtocolError(`Invalid response from ${url}: ${what}`, url);
  const te = head.transferEncodings;
  if (te.length > 0) {
    if (head.minorVersion === 0) throw invalid("Transfer-Encoding in an HTTP/1.0 response");
    if (te.length > 1 || te[0]!.toLowerCase() !== "chunked") {
      throw invalid(`unsupported Transfer-Encoding ${JSON.stringify(te.join(", ").slice(0, 100))}`);
    }
  }
  const cl = head.contentLengths;
  let length = -1;
  if (cl.length > 0) {
    const first = cl[0]!;
    if (cl.some((v) => v !== first)) {
      throw invalid(
        `different Content-Length values ${JSON.stringify(cl.slice(0, 4).join(", ").slice(0, 100))}`,
      );
    }
    length = parseLength(first);
    if (length < 0) throw invalid(`invalid Content-Length ${JSON.stringify(first.slice(0, 100))}`);
  }
  const status = head.status;
  if (method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200)) return NONE;
  if (te.length > 0) return CHUNKED;
  if (length === -1) return CLOSE;
  return length === 0 ? NONE : { kind: "length", length };
}

// 2^63 - 1, the largest length Go accepts; longer ones are refused, as there.
const MAX_LENGTH = "9223372036854775807";

/** A Content-Length value, or -1 if it is not decimal digits below 2^63 (leading zeros allowed). */
function parseLength(value: string): number {
  if (!/^\d+$/.test(value)) return -1;
  const digits = value.replace(/^0+(?=\d)/, "");
  if (digits.length > MAX_LENGTH.length || (digits.length === MAX_LENGTH.length && digits > MAX_LENGTH)) {
    return -1;
  }
  // Above 2^53 the number is inexact, but then it is far above any body limit, or never ends.
  return Number(digits);
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
