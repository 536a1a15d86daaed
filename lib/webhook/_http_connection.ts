/**
 * One HTTP/1.1 server connection: requests read one at a time under byte limits and deadlines, answered
 * in order, so no client can hold the connection's memory or time beyond them.
 * @module
 */
import type { Clock, Timer } from "../time/clock.ts";
import { headEnd, HttpRequestError, parseHead, type RequestHead } from "./_http_head.ts";
import { type HttpResponse, responseBytes } from "./_http_response.ts";

export type { HttpResponse };

/** The duplex byte stream a connection runs on (a TLS connection, or a fake in tests). */
export interface ByteStream {
  /** Registers a listener. */
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  /** Registers a listener. */
  on(event: "close", listener: () => void): unknown;
  /** Registers a listener. */
  on(event: "error", listener: (error: Error) => void): unknown;
  /** Registers a one-time listener for the drain of the write buffer. */
  once(event: "drain", listener: () => void): unknown;
  /** Queues bytes; false when the write buffer is full (wait for "drain"). Failures arrive as "error". */
  write(chunk: Uint8Array): boolean;
  /** Sends the end of the stream (TLS close_notify) and closes once written. */
  end(): unknown;
  /** Closes at once. */
  destroy(): unknown;
}

/** A complete request. */
export interface HttpRequest extends RequestHead {
  /** Exactly `contentLength` bytes. */
  readonly body: Uint8Array;
}

/** Byte and time limits of a connection. */
export interface ConnectionLimits {
  /** Largest request head (request line and header fields); larger gets 431. */
  readonly maxHeaderBytes: number;
  /** Largest body; a larger Content-Length gets 413 before any of the body is read. */
  readonly maxBodyBytes: number;
  /**
   * Time from a request's first byte until its body is complete, and for writing the answer. Over it: 408.
   */
  readonly requestTimeoutMs: number;
  /**
   * Time a connection may sit without a request: between requests, and before its first one. A client's
   * pool holds connections it dialed but has not used yet exactly like used ones (Go's transport parks a
   * connection that lost a dial race), so a shorter bound for the first request closes connections the
   * client is about to reuse, and its POST fails.
   */
  readonly idleTimeoutMs: number;
}

/** Why a connection ended other than by the client closing it. */
export type ConnectionOutcome = "idle" | "refused" | "flood" | "write-timeout" | "error";

/** Options of {@linkcode serveConnection}. */
export interface ServeConnectionOptions {
  /** Answers complete requests; a rejection is answered 500. */
  handler: (request: HttpRequest) => Promise<HttpResponse>;
  /** The limits. */
  limits: ConnectionLimits;
  /** Time source of the deadlines. */
  clock: Clock;
  /** Told why the server ended the connection, and about each refused request (for metrics and logs). */
  onOutcome?: (outcome: ConnectionOutcome, detail?: HttpRequestError) => void;
}

/** A served connection. */
export interface ServedConnection {
  /** True while no request is being read or answered. */
  readonly idle: boolean;
  /** Finishes the request in progress, if any, then closes; closes at once when idle. */
  drain(): void;
  /** Closes at once. */
  destroy(): void;
  /** Resolves once the stream closed. */
  readonly closed: Promise<void>;
}

const encoder = new TextEncoder();

/** Serves `stream` until it closes. */
export function serveConnection(stream: ByteStream, options: ServeConnectionOptions): ServedConnection {
  const { limits, clock, handler } = options;
  let buffer = new Uint8Array(0);
  let state: "waiting" | "reading" | "busy" | "closed" = "waiting";
  // Read through a function: callbacks change `state` across awaits, which the compiler's narrowing ignores.
  const stateNow = () => state;
  let head: RequestHead | undefined;
  let draining = false;
  let timer: Timer | undefined;
  let resolveClosed: () => void;
  const closed = new Promise<void>((resolve) => resolveClosed = resolve);

  const arm = (ms: number, onExpiry: () => void) => {
    timer?.cancel();
    timer = clock.setTimer(onExpiry, ms);
  };
  // A stream need not report the close of a socket we destroyed (node:tls in Deno 2.9.6 did not always, and a
  // server that waited for it never finished shutting down): our own close counts as closed.
  const close = (outcome?: ConnectionOutcome) => {
    if (state === "closed") return;
    state = "closed";
    timer?.cancel();
    if (outcome) options.onOutcome?.(outcome);
    stream.destroy();
    resolveClosed();
  };
  /** Ends after the last write (close_notify); a peer that keeps its side open is destroyed a second later. */
  const end = () => {
    state = "closed";
    timer?.cancel();
    stream.end();
    const fallback = clock.setTimer(() => {
      stream.destroy();
      resolveClosed();
    }, 1_000);
    void closed.then(() => fallback.cancel());
  };
  const wait = () => {
    state = "waiting";
    head = undefined;
    arm(limits.idleTimeoutMs, () => close("idle"));
  };

  /** Writes; when the client does not read and the buffer fills, waits for it to drain, up to the timeout. */
  const write = (bytes: Uint8Array): boolean | Promise<boolean> => {
    if (stream.write(bytes)) return stateNow() !== "closed";
    return new Promise((resolve) => {
      const writeTimer = clock.setTimer(() => {
        close("write-timeout");
        resolve(false);
      }, limits.requestTimeoutMs);
      stream.once("drain", () => {
        writeTimer.cancel();
        resolve(stateNow() !== "closed");
      });
    });
  };

  const respond = (response: HttpResponse, keepAlive: boolean): boolean | Promise<boolean> =>
    write(responseBytes(response, keepAlive));

  /** Answers a refused request and closes. */
  const refuse = async (error: HttpRequestError) => {
    state = "busy";
    timer?.cancel();
    options.onOutcome?.("refused", error);
    const sent = await respond({
      status: error.status,
      contentType: "text/plain; charset=utf-8",
      body: `${error.message}\n`,
    }, false);
    if (sent && stateNow() !== "closed") end();
  };

  const pump = async (): Promise<void> => {
    while (state === "waiting" || state === "reading") {
      if (head === undefined) {
        if (buffer.length === 0) return;
        if (state === "waiting") {
          state = "reading";
          arm(
            limits.requestTimeoutMs,
            () => void refuse(new HttpRequestError(408, "the request took too long to arrive")),
          );
        }
        const end = headEnd(buffer.subarray(0, limits.maxHeaderBytes + 4));
        if (end === -1) {
          if (buffer.length > limits.maxHeaderBytes) {
            return await refuse(
              new HttpRequestError(431, `the request head exceeds ${limits.maxHeaderBytes} bytes`),
            );
          }
          return;
        }
        try {
          head = parseHead(buffer.subarray(0, end));
        } catch (error) {
          if (error instanceof HttpRequestError) return await refuse(error);
          throw error;
        }
        buffer = buffer.subarray(end);
        if (head.contentLength > limits.maxBodyBytes) {
          return await refuse(
            new HttpRequestError(
              413,
              `the body (${head.contentLength} bytes) exceeds ${limits.maxBodyBytes} bytes`,
            ),
          );
        }
        if (head.expectContinue && buffer.length < head.contentLength) {
          if (!await write(encoder.encode("HTTP/1.1 100 Continue\r\n\r\n"))) return;
        }
      }
      if (buffer.length < head.contentLength) return;
      const request: HttpRequest = { ...head, body: buffer.slice(0, head.contentLength) };
      buffer = buffer.subarray(head.contentLength);
      state = "busy";
      timer?.cancel();
      let response: HttpResponse;
      try {
        response = await handler(request);
      } catch {
        response = { status: 500, contentType: "text/plain; charset=utf-8", body: "internal error\n" };
      }
      if (stateNow() !== "busy") return;
      const keepAlive = request.keepAlive && !draining;
      if (!await respond(response, keepAlive)) return;
      if (!keepAlive) return end();
      wait();
    }
  };

  let pumping = false;
  let again = false;
  const run = () => {
    // One pump at a time. Bytes that arrive while it runs are looked at again once it returns.
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    again = false;
    pump().catch(() => close("error")).finally(() => {
      pumping = false;
      if (again && stateNow() !== "busy") run();
    });
  };

  stream.on("data", (chunk) => {
    if (state === "closed") return;
    const next = new Uint8Array(buffer.length + chunk.length);
    next.set(buffer);
    next.set(chunk, buffer.length);
    buffer = next;
    // A client that keeps sending while its request is handled can queue at most one more request.
    if (buffer.length > limits.maxHeaderBytes + limits.maxBodyBytes + 4) return close("flood");
    if (state !== "busy") run();
  });
  stream.on("error", () => close());
  stream.on("close", () => {
    if (state !== "closed") {
      state = "closed";
      timer?.cancel();
    }
    resolveClosed();
  });
  wait();

  return {
    get idle() {
      return state === "waiting";
    },
    drain() {
      draining = true;
      if (state === "waiting") close();
    },
    destroy: () => close(),
    closed,
  };
}
