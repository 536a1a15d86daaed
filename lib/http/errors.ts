/**
 * The base of every error this HTTP client raises for a failed exchange (bad arguments raise
 * TypeError/RangeError, and an aborted request rejects with `signal.reason` instead).
 */
export class HttpError extends Error {
  /** The URL (or origin, for connection failures) the failure is about. */
  readonly url: string;

  /** Creates an error about `url`; `message` should already say what failed and where. */
  constructor(message: string, url: string, options?: ErrorOptions) {
    super(message, options);
    this.url = url;
  }

  /** Always "HttpError". */
  override get name(): string {
    return "HttpError";
  }
}

/** The TCP connection could not be opened: refused, unreachable, or the host name did not resolve. */
export class ConnectError extends HttpError {
  /** Always "ConnectError". */
  override get name(): string {
    return "ConnectError";
  }
}

/**
 * The TLS handshake failed or the server rejected us during it: unknown certificate authority,
 * expired certificate, certificate not valid for the name, client certificate required or rejected.
 */
export class TlsError extends HttpError {
  /** Always "TlsError". */
  override get name(): string {
    return "TlsError";
  }
}

/** Connecting, or waiting for the response head or the next body bytes, took longer than allowed. */
export class TimeoutError extends HttpError {
  /** Always "TimeoutError". */
  override get name(): string {
    return "TimeoutError";
  }
}

/**
 * The server sent bytes that are not a valid HTTP/1.1 response (bad status line, bad header, bad
 * chunk size) or ended the body early. The parse-failure counterpart of a SyntaxError.
 */
export class ProtocolError extends HttpError {
  /** Always "ProtocolError". */
  override get name(): string {
    return "ProtocolError";
  }
}

/**
 * A response body is larger than the client accepts (`maxBodyBytes`, counted after gzip decoding),
 * so a broken or hostile server cannot make the client buffer without bound. The connection is
 * closed.
 */
export class BodyTooLargeError extends HttpError {
  /** The limit that was exceeded, in bytes. */
  readonly limit: number;

  /** Creates the error for a body from `url` over `limit` bytes. */
  constructor(message: string, url: string, limit: number) {
    super(message, url);
    this.limit = limit;
  }

  /** Always "BodyTooLargeError". */
  override get name(): string {
    return "BodyTooLargeError";
  }
}
