import type { Status } from "../resources/object.ts";

/**
 * An error response from the API server, carrying its `Status`.
 * `code` is the HTTP status; `reason` is the machine-readable `Status.reason`.
 */
export class ApiError extends Error {
  /** HTTP status code. */
  readonly code: number;
  /** `Status.reason`, e.g. "NotFound", "AlreadyExists", "Conflict", "Expired". */
  readonly reason: string;
  /** The server's Status object (synthesised when the body was not a Status). */
  readonly status: Status;
  /** Seconds the server asked us to wait (Retry-After or details.retryAfterSeconds). */
  readonly retryAfterSeconds: number | undefined;

  /** Wraps the server's `status`; `method` and `path` go into the message. */
  constructor(status: Status, options?: { cause?: unknown; method?: string; path?: string }) {
    const code = status.code ?? 0;
    const where = options?.method && options.path ? ` (${options.method} ${options.path})` : "";
    super(`${status.message ?? status.reason ?? `HTTP ${code}`}${where}`, { cause: options?.cause });
    this.name = "ApiError";
    this.code = code;
    this.reason = status.reason ?? reasonForCode(code);
    this.status = status;
    this.retryAfterSeconds = status.details?.retryAfterSeconds;
  }

  /** The details of the Status, if any. */
  get details(): Status["details"] {
    return this.status.details;
  }
  /** 404 / NotFound. */
  get isNotFound(): boolean {
    return this.reason === "NotFound" || (this.code === 404 && this.reason === "");
  }
  /** 409 / Conflict (a stale resourceVersion on update). */
  get isConflict(): boolean {
    return this.reason === "Conflict";
  }
  /** 409 / AlreadyExists (create of an existing name). */
  get isAlreadyExists(): boolean {
    return this.reason === "AlreadyExists";
  }
  /** 410 / Gone or Expired: the requested resourceVersion is too old; relist. */
  get isGone(): boolean {
    return isGoneStatus(this.status);
  }
  /** 403 / Forbidden (RBAC). */
  get isForbidden(): boolean {
    return this.code === 403 || this.reason === "Forbidden";
  }
  /** 401 / Unauthorized. */
  get isUnauthorized(): boolean {
    return this.code === 401 || this.reason === "Unauthorized";
  }
  /** 422 / Invalid (validation). */
  get isInvalid(): boolean {
    return this.code === 422 || this.reason === "Invalid";
  }
  /** 429 / TooManyRequests. */
  get isTooManyRequests(): boolean {
    return this.code === 429 || this.reason === "TooManyRequests";
  }
}

/**
 * True for a Status meaning "the resourceVersion is too old": code 410 or reason Gone/Expired. One
 * rule for answers ({@linkcode ApiError#isGone}) and for watch ERROR events, which carry a bare Status.
 */
export function isGoneStatus(status: Status): boolean {
  return status.code === 410 || status.reason === "Gone" || status.reason === "Expired";
}

/** The reason the API server would give for a bare HTTP status. */
export function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "Unknown";
  }
}
