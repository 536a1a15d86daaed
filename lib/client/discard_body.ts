import type { HttpResponse } from "../http/types.ts";

/** Bodies up to this size are read to their end so the connection goes back to the pool. */
export const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * Disposes of a response body nobody needs (a DELETE result, a 401 or 429 before a retry).
 *
 * Cancelling a body closes its socket, since the HTTP client cannot reuse a connection with unread
 * bytes; for a small body, reading it to the end is cheaper than a new TCP and TLS handshake. So a
 * body whose Content-Length is at most `DRAIN_LIMIT_BYTES`, or a non-streaming one without
 * Content-Length (chunked) that ends within that many bytes, is read; anything else is cancelled.
 * Never throws: a failure only means the connection is not reused.
 */
export async function discardBody(res: HttpResponse, streaming: boolean): Promise<void> {
  const length = res.headers.get("content-length");
  const declared = length === null ? undefined : Number(length);
  const drain = declared === undefined
    ? !streaming
    : Number.isFinite(declared) && declared <= DRAIN_LIMIT_BYTES;
  if (!drain) {
    await res.cancel().catch(() => {});
    return;
  }
  const reader = res.body.getReader();
  try {
    let seen = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.length;
      if (seen > DRAIN_LIMIT_BYTES) {
        await reader.cancel().catch(() => {});
        return;
      }
    }
  } catch {
    // The body failed; its connection is already closed.
  } finally {
    reader.releaseLock();
  }
}
