import type { HttpResponse } from "../http/types.ts";
import { ApiError, reasonForCode } from "./api_error.ts";
import type { Status } from "../resources/object.ts";

/** Error bodies are read up to this size; a Status is far smaller, anything longer is cut off. */
export const ERROR_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Turns a non-2xx response into an ApiError: the server's Status when the body is one, else a
 * Status synthesised from the HTTP code and (the start of) the body text. At most
 * `ERROR_BODY_LIMIT_BYTES` of the body are read; a longer body is cancelled (its connection closed).
 */
export async function errorFromResponse(
  res: HttpResponse,
  method: string,
  path: string,
  retryAfterSeconds?: number,
): Promise<ApiError> {
  let text = "";
  try {
    text = await readStart(res, ERROR_BODY_LIMIT_BYTES);
  } catch (cause) {
    return new ApiError(synthesised(res.status, `HTTP ${res.status} ${res.statusText} (body unreadable)`), {
      cause,
      method,
      path,
    });
  }
  let status: Status | undefined;
  try {
    const parsed = JSON.parse(text) as Status;
    if (parsed && typeof parsed === "object" && parsed.kind === "Status") status = parsed;
  } catch {
    // Not JSON: proxies and some errors answer with plain text; it becomes the message below.
  }
  status ??= synthesised(res.status, text.trim().slice(0, 500) || `HTTP ${res.status} ${res.statusText}`);
  if (status.code === undefined) status = { ...status, code: res.status };
  if (retryAfterSeconds !== undefined && status.details?.retryAfterSeconds === undefined) {
    status = { ...status, details: { ...status.details, retryAfterSeconds } };
  }
  return new ApiError(status, { method, path });
}

function synthesised(code: number, message: string): Status {
  return { kind: "Status", apiVersion: "v1", status: "Failure", code, reason: reasonForCode(code), message };
}

/** The first `limit` bytes of the body as UTF-8; the rest is not read (the body is cancelled). */
async function readStart(res: HttpResponse, limit: number): Promise<string> {
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.length, limit - total);
      parts.push(take === value.length ? value : value.subarray(0, take));
      total += take;
    }
    if (total >= limit) await reader.cancel().catch(() => {});
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(bytes);
}
