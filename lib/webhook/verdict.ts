/**
 * What an admission handler decides: {@linkcode allow} or {@linkcode deny}.
 * @module
 */

/** The request may proceed. */
export class Allowed {
  /** Always true. */
  readonly allowed = true;
}

/** HTTP status codes a denial may carry, with the `reason` kube-apiserver clients expect for each. */
const REASONS: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
};

/** The request is refused; the client sees `message` and `code`. */
export class Denied {
  /** Always false. */
  readonly allowed = false;
  /** Shown to the client: kubectl prints `admission webhook "<name>" denied the request: <message>`. */
  readonly message: string;
  /** HTTP status code the API server answers the client with. */
  readonly code: number;
  /** Machine-readable reason, e.g. "Forbidden" or "Invalid". */
  readonly reason: string;
  /** See {@linkcode deny}. */
  constructor(message: string, code: number, reason: string) {
    this.message = message;
    this.code = code;
    this.reason = reason;
  }
}

/** The result of a validating handler. */
export type AdmissionVerdict = Allowed | Denied;

const ALLOWED = Object.freeze(new Allowed());

/** Lets the request proceed. Warnings go through `context.warn`. */
export function allow(): Allowed {
  return ALLOWED;
}

/** Options of {@linkcode deny}. */
export interface DenyOptions {
  /**
   * HTTP status code for the client, 400 to 599: 422 (Invalid) for a bad object, 403 (Forbidden) for a
   * request the policy refuses.
   * @default {403}
   */
  code?: number;
  /**
   * Machine-readable reason.
   * @default {the reason of `code`: "Invalid" for 422, "Forbidden" for 403, …}
   */
  reason?: string;
}

/**
 * Refuses the request with `message` (shown to the client, so it must not quote secrets from the object).
 * Throws a RangeError for a code outside 400–599 or an empty message: the API server would turn either into
 * a confusing error.
 */
export function deny(message: string, options: DenyOptions = {}): Denied {
  const code = options.code ?? 403;
  if (!Number.isInteger(code) || code < 400 || code > 599) {
    throw new RangeError(`A denial's code must be an HTTP error status from 400 to 599, not ${code}`);
  }
  if (message.trim() === "") throw new RangeError("A denial needs a message that says why");
  return new Denied(
    message,
    code,
    options.reason ?? REASONS[code] ?? (code < 500 ? "BadRequest" : "InternalError"),
  );
}
