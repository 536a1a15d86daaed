import { HttpError, TimeoutError, TlsError } from "./errors.ts";
import { describeTlsFailure, isTlsFailure } from "./tls_failure.ts";

/** The byte-level socket a Connection needs; `Deno.Conn` fits, and so does the node:tls adapter. */
export interface ByteSocket {
  read(p: Uint8Array): Promise<number | null>;
  write(p: Uint8Array): Promise<number>;
  close(): void;
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
  #closed = false;
  #failure: unknown = undefined;
  #url = "";
  #readTimeoutMs = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onTimeout = (): void => {
    this.#timer = undefined;
    this.fail(
      new TimeoutError(
        `Timed out reading the response from ${this.#url}: no data for ${this.#readTimeoutMs} ms`,
        this.#url,
      ),
    );
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

  /** Starts a request: names it in errors and sets the per-read timeout (0 disables it). */
  begin(url: string, readTimeoutMs: number): void {
    this.#url = url;
    this.#readTimeoutMs = readTimeoutMs;
    this.received = 0;
  }

  /** Changes the per-read timeout, e.g. to none for a streaming body. */
  setReadTimeout(ms: number): void {
    this.#readTimeoutMs = ms;
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
    if (this.#readTimeoutMs > 0) this.#timer = setTimeout(this.#onTimeout, this.#readTimeoutMs);
    let n: number | null;
    try {
      n = await this.#socket.read(this.#buf);
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
