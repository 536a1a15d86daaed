import type { HttpResponse } from "../http/types.ts";
import { ApiError, reasonForCode } from "./api_error.ts";
import type { Status } from "./types.ts";

/**
 * Turns a non-2xx response into an ApiError: the server's Status when the body is one, else a
 * Status synthesised from the HTTP code and (the start of) the body text.
 */
export async function errorFromResponse(
  res: HttpResponse,
  method: string,
  path: string,
  retryAfterSeconds?: number,
): Promise<ApiError> {
  let text = "";
  try {
    text = await res.text();
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
