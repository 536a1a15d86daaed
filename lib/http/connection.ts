import { HttpError, TimeoutError, TlsError } from "./errors.ts";
import { describeTlsFailure, isTlsFailure } from "./tls_failure.ts";

/** The byte-level socket a Connection needs; `Deno.Conn` fits, and so does the node:tls adapter. */
export interface ByteSocket {
  read(p: Uint8Array): Promise<number | null>;
  write(p: Uint8Array): Promise<number>;
  close(): void;
  /** Lets a pending read keep the process alive again (after `unref`). */
  ref?(): void;
  /** Lets the process exit while a read is pending (an idle pooled connection's watch). */
  unref?(): void;
}

const READ_BUFFER_BYTES = 16 * 1024;

/**
 * One socket to one origin, with a reusable read buffer. `read()` returns a view into that buffer
 * that stays valid only until the next `read()`; `unread()` hands back the part a parser did not
 * use. Timeouts and aborts close the socket and make every later call throw the recorded reason.
 */
export class Connection {
  /** `scheme://host:port`, the pool key. */
  readonly origin: string;
  /** Whether the socket is TLS, so read failures can be told apart as TLS alerts. */
  readonly tls: boolean;
  /** Number of requests this connection has completed; above zero means it came from the pool. */
  served = 0;
  /** When the connection last went idle, per the pool's clock. */
  idleSince = 0;
  /** Response bytes received for the current request, to decide whether a retry is safe. */
  received = 0;

  readonly #socket: ByteSocket;
  readonly #buf = new Uint8Array(READ_BUFFER_BYTES);
  #pending: Uint8Array | null = null;
  // The read started while the connection was idle in the pool; the next request adopts it.
  #idleRead: Promise<number | null> | null = null;
  #idle = false;
  #closed = false;
  #failure: unknown = undefined;
  #url = "";
  #readTimeoutMs = 0;
  // When (performance.now()) the response head must be complete, and the limit it came from; 0: none.
  #headDeadline = 0;
  #headTimeoutMs = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerIsDeadline = false;
  readonly #onTimeout = (): void => {
    this.#timer = undefined;
    this.fail(this.#timerIsDeadline ? this.#headTimeout() : this.#readTimeout());
  };

  /** Wraps an open socket. */
  constructor(socket: ByteSocket, origin: string, tls: boolean) {
    this.#socket = socket;
    this.origin = origin;
    this.tls = tls;
  }

  /** True once closed (by the pool, a failure, an abort or a cancelled body). */
  get closed(): boolean {
    return this.#closed;
  }

  /** True when bytes beyond the last response are buffered: such a connection cannot be reused. */
  get hasBufferedBytes(): boolean {
    return this.#pending !== null && this.#pending.length > 0;
  }

  /**
   * Watches the connection while it is idle in the pool, so that it can never answer a later
   * request with bytes that no request asked for. HTTP/1.1 has no way to tell which request a
   * response belongs to: it is the next one on the connection. A server (or anything on the path)
   * that sends an extra response after a complete one would otherwise have it read as the answer
   * to the next request, and every later answer on the connection shifted by one.
   *
   * Neither socket kind offers a non-blocking readiness check (`Deno.Conn` has no poll, and bytes
   * reach JavaScript only through a read's promise), so a read is kept pending while the
   * connection is idle: `Deno.Conn.read` and the node:tls adapter's `read` both resolve as soon as a
   * byte or the end of the stream arrives, without a request having to ask. If it resolves while
   * the connection is still idle (a byte, EOF or an error), the connection is closed and
   * `onUnsolicited` is told how many bytes came (0 for EOF or an error); the pool skips closed
   * connections. If a request takes the connection first, `begin` adopts the pending read as the
   * first read of the response: a request counts as outstanding from `begin`, which runs in the
   * same JavaScript task as the write of its first byte, as Go's transport counts a response as
   * expected before it writes the request. The pending read is unref'd, so an idle connection
   * never keeps the process alive.
   *
   * What it cannot see: bytes that reached the socket after the runtime last polled it and before
   * the next request is written (the runtime delivers a read's result only between JavaScript
   * tasks). They are read as that request's response; the bytes that then follow it are extra and
   * close the connection as above.
   */
  watchIdle(onUnsolicited: (bytes: number) => void): void {
    if (this.#closed || this.#idle) return;
    this.#idle = true;
    this.#socket.unref?.();
    const read = this.#socket.read(this.#buf);
    this.#idleRead = read;
    const unsolicited = (bytes: number) => {
      if (!this.#idle || this.#idleRead !== read) return; // a request adopted the read
      this.#idle = false;
      this.#idleRead = null;
      this.close();
      onUnsolicited(bytes);
    };
    read.then((n) => unsolicited(n ?? 0), () => unsolicited(0));
  }

  /** Starts a request: names it in errors and sets the per-read timeout (0 disables it). */
  begin(url: string, readTimeoutMs: number): void {
    if (this.#idle) {
      this.#idle = false;
      this.#socket.ref?.();
    }
    this.#url = url;
    this.#readTimeoutMs = readTimeoutMs;
    this.received = 0;
  }

  /** Changes the per-read timeout, e.g. to none for a streaming body. */
  setReadTimeout(ms: number): void {
    this.#readTimeoutMs = ms;
  }

  /**
   * Starts (with `ms` > 0) or ends (0) a deadline for the whole response head: reads past it fail
   * with a TimeoutError however quickly bytes come. It shares the per-read timer, so it costs no timer
   * of its own.
   */
  setHeadDeadline(ms: number): void {
    this.#headTimeoutMs = ms;
    this.#headDeadline = ms > 0 ? performance.now() + ms : 0;
  }

  /** Writes all of `data`. */
  async write(data: Uint8Array): Promise<void> {
    this.#throwIfFailed();
    try {
      let at = 0;
      while (at < data.length) at += await this.#socket.write(at === 0 ? data : data.subarray(at));
    } catch (err) {
      throw this.#mapError(err, "sending the request to");
    }
  }

  /**
   * Returns the next bytes (a view valid until the next call), or null at end of stream.
   * @throws the abort reason, a TimeoutError, a TlsError for a TLS alert, or an HttpError.
   */
  async read(): Promise<Uint8Array | null> {
    this.#throwIfFailed();
    const pending = this.#pending;
    if (pending !== null) {
      this.#pending = null;
      return pending;
    }
    let wait = this.#readTimeoutMs;
    this.#timerIsDeadline = false;
    if (this.#headDeadline > 0) {
      const left = this.#headDeadline - performance.now();
      if (left <= 0) {
        this.fail(this.#headTimeout());
        this.#throwIfFailed();
      }
      if (wait === 0 || left < wait) {
        wait = left;
        this.#timerIsDeadline = true;
      }
    }
    if (wait > 0) this.#timer = setTimeout(this.#onTimeout, wait);
    let n: number | null;
    try {
      const adopted = this.#idleRead;
      this.#idleRead = null;
      n = await (adopted ?? this.#socket.read(this.#buf));
    } catch (err) {
      throw this.#mapError(err, "reading the response from");
    } finally {
      if (this.#timer !== undefined) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
      }
    }
    this.#throwIfFailed();
    if (n === null) return null;
    this.received += n;
    return this.#buf.subarray(0, n);
  }

  /** Gives back the unused tail of the view the last `read()` returned. */
  unread(rest: Uint8Array): void {
    this.#pending = rest.length === 0 ? null : rest;
  }

  /** Closes the socket and makes every later call throw `reason` (an abort reason or a timeout). */
  fail(reason: unknown): void {
    if (this.#failure === undefined) this.#failure = reason;
    this.close();
  }

  /** Closes the socket; idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    try {
      this.#socket.close();
    } catch {
      // Already closed by the peer or the runtime: nothing left to release.
    }
  }

  #readTimeout(): TimeoutError {
    const ms = this.#readTimeoutMs;
    return new TimeoutError(
      `Timed out reading the response from ${this.#url}: no data for ${ms} ms`,
      this.#url,
    );
  }

  #headTimeout(): TimeoutError {
    return new TimeoutError(
      `Timed out waiting for the response head from ${this.#url}: not complete after ${this.#headTimeoutMs} ms`,
      this.#url,
    );
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#closed) throw new HttpError(`Connection to ${this.origin} is closed`, this.#url);
  }

  #mapError(err: unknown, doing: string): unknown {
    if (this.#failure !== undefined) return this.#failure;
    this.close();
    if (this.tls && isTlsFailure(err)) {
      return new TlsError(`Cannot connect to ${this.origin}: ${describeTlsFailure(err)}`, this.#url, {
        cause: err,
      });
    }
    const detail = err instanceof Error ? err.message : String(err);
    return new HttpError(`Failed ${doing} ${this.#url}: ${detail}`, this.#url, { cause: err });
  }
}
