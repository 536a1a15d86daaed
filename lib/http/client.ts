import { bodyFraming, capBody, decodeContent, rawBodyStream, tooLarge } from "./body.ts";
import { openConnection } from "./connect.ts";
import type { Connection } from "./connection.ts";
import { HttpError, ProtocolError, TimeoutError } from "./errors.ts";
import { ConnectionPool } from "./pool.ts";
import { writeRequestHead } from "./request_writer.ts";
import { ClientResponse } from "./response.ts";
import { TlsConnector } from "./tls.ts";
import { type ResponseHead, ResponseHeadParser } from "./response_head.ts";
import type { HttpRequest, HttpResponse, TlsOptions, Transport } from "./types.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import type { Clock } from "../time/clock.ts";

/** Settings for an HttpClient. */
export interface HttpClientOptions {
  /**
   * TLS settings for https: URLs.
   * @default {system roots, full verification}
   */
  readonly tls?: TlsOptions;
  /**
   * Idle keep-alive connections kept per origin.
   * @default {4}
   */
  readonly maxIdlePerOrigin?: number;
  /**
   * An idle connection older than this is closed rather than reused.
   * @default {90_000}
   */
  readonly idleTimeoutMs?: number;
  /**
   * Limit for opening a connection, TLS handshake included.
   * @default {30_000}
   */
  readonly connectTimeoutMs?: number;
  /**
   * Limit for the whole response head, interim (1xx) heads included, counted from when the request
   * has been written (a server that trickles bytes does not reset it), and for each wait between
   * body bytes (not for `stream` bodies).
   * @default {60_000}
   */
  readonly readTimeoutMs?: number;
  /**
   * Largest accepted response head; interim (1xx) heads count towards it too, so that all the heads
   * of one response together stay within it. At most 8 interim heads may precede the final one.
   * @default {65_536}
   */
  readonly maxHeaderBytes?: number;
  /**
   * Largest accepted response body of a request that is not `stream` (a watch), counted after gzip
   * decoding; a larger one fails with a BodyTooLargeError and its connection is closed. A declared
   * Content-Length above it fails before the body is read. Streaming bodies have no total limit
   * (bound their records instead, as the watch decoder bounds lines). Raise it for unpaged lists
   * of very large collections.
   * @default {268_435_456 (256 MiB)}
   */
  readonly maxBodyBytes?: number;
  /**
   * The User-Agent header, unless a request sets its own.
   * @default {"kubeloop/0.1 deno/<version>"}
   */
  readonly userAgent?: string;
  /**
   * Receives the warning when `tls.insecureSkipVerify` is set, the line saying when connections
   * with a configured CA leave Deno's TLS for node:tls (see `TlsConnector`), and a warning for each
   * idle connection closed because the server sent bytes no request asked for.
   * @default {noopLogger}
   */
  readonly logger?: Logger;
  /**
   * Time source for idle expiry.
   * @default {systemClock}
   */
  readonly clock?: Clock;
}

// Safe to send twice (RFC 9110 section 9.2.2), so a request on a stale pooled connection may be retried.
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]);
const encoder = new TextEncoder();
const COALESCE_BODY_BYTES = 16 * 1024;
// Interim (1xx) heads accepted before the final one. Kubernetes sends none (the client never asks
// for 100-continue); 103 Early Hints may come a few times. Go bounds only their bytes (10 MB).
const MAX_INTERIM_RESPONSES = 8;

/**
 * A small HTTP/1.1 client over `Deno.connect` / `Deno.connectTls` with a keep-alive pool. A
 * configured CA (`tls.caCerts`) is trusted instead of the system roots, and the server's chain is
 * verified against it by our own check (see `TlsConnector`).
 *
 * Bodies are de-chunked and gunzipped, and bounded by `maxBodyBytes` unless streamed. A response
 * body must be read to the end or cancelled:
 * only a fully read body returns its connection to the pool; cancelling closes the socket.
 *
 * Retry policy: a request is sent again, once, on a fresh connection only when it went out on a
 * reused pooled connection that failed before a single response byte arrived (the server had
 * closed the idle connection) and either the method is idempotent or writing the request failed.
 * Timeouts, aborts, requests refused by their `beforeWrite` gate and failures on fresh connections
 * are never retried.
 */
export class HttpClient implements Transport {
  readonly #tls: TlsConnector;
  readonly #pool: ConnectionPool;
  readonly #connectTimeoutMs: number;
  readonly #readTimeoutMs: number;
  readonly #maxHeaderBytes: number;
  readonly #maxBodyBytes: number;
  readonly #userAgent: string;
  #closed = false;

  /**
   * Creates a client; it opens no connection until the first request.
   * @throws {TypeError} {RangeError} for invalid options, e.g. a `tls.caCerts` entry that holds no
   *   parsable PEM certificate.
   */
  constructor(options: HttpClientOptions = {}) {
    const tls = options.tls ?? {};
    this.#connectTimeoutMs = positive("connectTimeoutMs", options.connectTimeoutMs ?? 30_000);
    this.#readTimeoutMs = positive("readTimeoutMs", options.readTimeoutMs ?? 60_000);
    this.#maxHeaderBytes = positive("maxHeaderBytes", options.maxHeaderBytes ?? 65_536);
    this.#maxBodyBytes = positive("maxBodyBytes", options.maxBodyBytes ?? 256 * 1024 * 1024);
    this.#userAgent = options.userAgent ?? `kubeloop/0.1 deno/${Deno.version.deno}`;
    if (/[\r\n\0]/.test(this.#userAgent)) throw new TypeError("Invalid userAgent: it contains CR, LF or NUL");
    if ((tls.cert === undefined) !== (tls.key === undefined)) {
      throw new TypeError("Invalid TLS options: a client certificate needs both cert and key");
    }
    const logger = options.logger ?? noopLogger;
    this.#tls = new TlsConnector(tls, { logger });
    const maxIdle = options.maxIdlePerOrigin ?? 4;
    if (!Number.isInteger(maxIdle) || maxIdle < 0) {
      throw new RangeError("maxIdlePerOrigin must be an integer >= 0");
    }
    this.#pool = new ConnectionPool({
      maxIdlePerOrigin: maxIdle,
      idleTimeoutMs: positive("idleTimeoutMs", options.idleTimeoutMs ?? 90_000),
      ...(options.clock !== undefined && { clock: options.clock }),
      // As Go's transport logs "Unsolicited response received on idle HTTP channel"; the bytes
      // themselves stay out of the log (they may be object data).
      onUnsolicited: (origin, bytes) =>
        logger.warn("closed an idle connection that received bytes no request asked for", { origin, bytes }),
    });
    if (tls.insecureSkipVerify === true) {
      logger.warn(
        "TLS certificate verification is disabled (insecureSkipVerify): connections can be intercepted",
      );
    }
  }

  /** Number of idle pooled connections (for tests and metrics). */
  get idleConnections(): number {
    return this.#pool.size;
  }

  /**
   * Sends `request` and resolves once the response head has arrived.
   * @throws {ConnectError} {TlsError} {TimeoutError} {ProtocolError} {HttpError}, the abort
   *   reason if `signal` aborts, or TypeError for an invalid request.
   */
  async request(request: HttpRequest): Promise<HttpResponse> {
    const { method, url, signal } = request;
    if (this.#closed) throw new TypeError("HttpClient is closed");
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(`Unsupported URL scheme "${url.protocol}" in ${url.href}: use http: or https:`);
    }
    signal?.throwIfAborted();
    const stream = request.stream === true;
    const body = typeof request.body === "string" ? encoder.encode(request.body) : request.body;
    const head = writeRequestHead({
      method,
      url,
      headers: request.headers,
      bodyLength: body?.length,
      userAgent: this.#userAgent,
      close: stream,
    });
    const payload = body === undefined || body.length === 0
      ? [head]
      : body.length <= COALESCE_BODY_BYTES
      ? [concat(head, body)]
      : [head, body];

    for (let attempt = 0;; attempt++) {
      let conn = stream || attempt > 0 ? undefined : this.#pool.take(url.origin);
      const reused = conn !== undefined;
      conn ??= await openConnection(url, { tls: this.#tls, timeoutMs: this.#connectTimeoutMs, signal });
      const state = { wrote: false, refused: false };
      try {
        return await this.#exchange(conn, request, payload, state);
      } catch (err) {
        const retry = reused && !state.refused && conn.received === 0 && !(err instanceof TimeoutError) &&
          !(signal?.aborted ?? false) && (IDEMPOTENT.has(method) || !state.wrote);
        if (!retry) throw err;
      }
    }
  }

  async #exchange(
    conn: Connection,
    request: HttpRequest,
    payload: Uint8Array[],
    state: { wrote: boolean; refused: boolean },
  ): Promise<HttpResponse> {
    const { signal, method } = request;
    const href = request.url.href;
    const stream = request.stream === true;
    conn.begin(href, this.#readTimeoutMs);
    const onAbort = () => conn.fail(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let head: ResponseHead;
    try {
      try {
        request.beforeWrite?.();
      } catch (err) {
        state.refused = true;
        throw err;
      }
      // No await between the gate and the write call: on plain TCP, Deno's TLS and node:tls alike,
      // the bytes leave during the call (measured: they reached a server in another process while
      // this task kept the event loop busy for 300 ms).
      for (const part of payload) await conn.write(part);
      state.wrote = true;
      head = await this.#readHeadWithin(conn, method, href);
    } catch (err) {
      signal?.removeEventListener("abort", onAbort);
      conn.close();
      throw err;
    }
    let framing;
    try {
      framing = bodyFraming(method, head, href);
      if (!stream && framing.kind === "length" && framing.length > this.#maxBodyBytes) {
        throw tooLarge(href, this.#maxBodyBytes, false);
      }
    } catch (err) {
      signal?.removeEventListener("abort", onAbort);
      conn.close();
      throw err;
    }
    if (stream) conn.setReadTimeout(0);
    const keepAlive = !stream && head.minorVersion === 1 &&
      !hasToken(head.headers.get("connection"), "close");
    const done = (reusable: boolean) => {
      signal?.removeEventListener("abort", onAbort);
      if (reusable && keepAlive && !conn.closed && !conn.hasBufferedBytes) {
        conn.served++;
        this.#pool.put(conn);
      } else {
        conn.close();
      }
    };
    let body: ReadableStream<Uint8Array>;
    if (framing.kind === "none") {
      done(true);
      body = new ReadableStream({ start: (c) => c.close() });
    } else {
      const raw = rawBodyStream(conn, framing, href, done);
      body = decodeContent(raw, head.headers, href);
      if (!stream) body = capBody(body, this.#maxBodyBytes, href, body !== raw);
    }
    return new ClientResponse(head.status, head.statusText, head.headers, body);
  }

  /**
   * The final response head, within one deadline for all of it: the per-read timeout alone never
   * fires while bytes keep coming, and a server could trickle a head, or interim heads, forever.
   */
  async #readHeadWithin(conn: Connection, method: string, href: string): Promise<ResponseHead> {
    conn.setHeadDeadline(this.#readTimeoutMs);
    try {
      return await this.#readHead(conn, method, href);
    } finally {
      conn.setHeadDeadline(0);
    }
  }

  async #readHead(conn: Connection, method: string, href: string): Promise<ResponseHead> {
    let parser = new ResponseHeadParser(this.#maxHeaderBytes, href);
    let interim = 0, earlier = 0;
    for (;;) {
      const chunk = await conn.read();
      if (chunk === null) {
        if (conn.received === 0) {
          throw new HttpError(`Server closed the connection before responding to ${method} ${href}`, href);
        }
        throw new ProtocolError(`Truncated response from ${href}: the response head is incomplete`, href);
      }
      const used = parser.push(chunk);
      if (used === -1) continue;
      conn.unread(chunk.subarray(used));
      const head = parser.head;
      if (head.status >= 200) return head;
      if (head.status === 101) {
        throw new ProtocolError(`Invalid response from ${href}: unexpected 101 Switching Protocols`, href);
      }
      // An interim 1xx response precedes the real one; the heads share one byte bound.
      bodyFraming(method, head, href); // its framing fields must be valid, though it has no body
      if (++interim > MAX_INTERIM_RESPONSES) {
        throw new ProtocolError(
          `Invalid response from ${href}: more than ${MAX_INTERIM_RESPONSES} interim (1xx) responses before the final one`,
          href,
        );
      }
      earlier += parser.length;
      parser = new ResponseHeadParser(this.#maxHeaderBytes, href, interim, earlier);
    }
  }

  /** Closes idle connections; requests in flight finish, and new requests are refused. */
  close(): void {
    this.#closed = true;
    this.#pool.close();
  }

  /** Same as `close()`. */
  [Symbol.asyncDispose](): Promise<void> {
    this.close();
    return Promise.resolve();
  }
}

function positive(name: string, value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`${name} must be a positive number, got ${value}`);
  }
  return value;
}

function hasToken(value: string | null, token: string): boolean {
  if (value === null) return false;
  for (const part of value.split(",")) if (part.trim().toLowerCase() === token) return true;
  return false;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
