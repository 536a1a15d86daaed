import assert from "node:assert/strict";
import { ApiError } from "../../lib/client/api_error.ts";
import { ERROR_BODY_LIMIT_BYTES, errorFromResponse } from "../../lib/client/error_response.ts";
import type { HttpResponse } from "../../lib/http/types.ts";

/** A 500 answer whose body is `total` bytes of "x", produced on demand; counts what was pulled. */
function hugeErrorResponse(
  total: number,
): { res: HttpResponse; pulled: () => number; cancelled: () => boolean } {
  const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += chunk.length;
      controller.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  const res: HttpResponse = {
    status: 500,
    statusText: "Internal Server Error",
    headers: new Headers({ "content-type": "text/plain" }),
    body,
    bytes: async () => new Uint8Array(await new Response(body).arrayBuffer()),
    text: () => new Response(body).text(),
    cancel: () => body.cancel(),
  };
  return { res, pulled: () => pulled, cancelled: () => cancelled };
}

Deno.test("an error body is read only up to 64 KiB, the rest cancelled, and still becomes an ApiError", async () => {
  const huge = hugeErrorResponse(64 * 1024 * 1024);
  const error = await errorFromResponse(huge.res, "GET", "/api/v1/pods");
  assert.ok(error instanceof ApiError);
  assert.equal(error.code, 500);
  assert.ok(huge.pulled() <= ERROR_BODY_LIMIT_BYTES + 16 * 1024, `pulled ${huge.pulled()} bytes`);
  assert.equal(huge.cancelled(), true);
  // The synthesised message shows the start of the text only.
  assert.ok(error.message.length < 1000, `message of ${error.message.length} characters`);
});

Deno.test("a small error body is read whole and its Status used", async () => {
  const status = JSON.stringify({
    kind: "Status",
    code: 404,
    reason: "NotFound",
    message: 'pods "x" not found',
  });
  const body = new Response(status).body!;
  const res: HttpResponse = {
    status: 404,
    statusText: "Not Found",
    headers: new Headers(),
    body,
    bytes: async () => new Uint8Array(await new Response(body).arrayBuffer()),
    text: () => new Response(body).text(),
    cancel: () => body.cancel(),
  };
  const error = await errorFromResponse(res, "GET", "/api/v1/namespaces/ns/pods/x");
  assert.equal(error.reason, "NotFound");
  assert.match(error.message, /pods "x" not found/);
});
