/**
 * A Deno TLS connection as the event-style byte stream the server's connection logic runs on: reads pushed
 * as "data" as they arrive, writes queued in order, and one "close" however it ends.
 * @module
 */
import type { ByteStream } from "./_http_connection.ts";

/** Queued bytes above which `write` reports a full buffer. */
const HIGH_WATER = 64 * 1024;
const READ_SIZE = 64 * 1024;

/** A `Deno.TlsConn` (or any `Deno.Conn`) as a {@linkcode ByteStream}. */
export class ConnStream implements ByteStream {
  readonly #conn: Deno.Conn;
  readonly #data: ((chunk: Uint8Array) => void)[] = [];
  readonly #closeListeners: (() => void)[] = [];
  readonly #errorListeners: ((error: Error) => void)[] = [];
  #drain: (() => void)[] = [];
  readonly #queue: Uint8Array[] = [];
  #queued = 0;
  #writing = false;
  #ending = false;
  #closed = false;
  #resolveClosed!: () => void;
  /** Resolves once the connection is closed, by either side. */
  readonly closed: Promise<void> = new Promise((resolve) => this.#resolveClosed = resolve);

  /** Wraps `conn`; nothing is read before {@linkcode start}. */
  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** Registers a listener (ByteStream). */
  on(event: "data", listener: (chunk: Uint8Array) => void): this;
  on(event: "close", listener: () => void): this;
  on(event: "error", listener: (error: Error) => void): this;
  on(event: string, listener: (arg: never) => void): this {
    if (event === "data") this.#data.push(listener as (chunk: Uint8Array) => void);
    else if (event === "close") this.#closeListeners.push(listener as () => void);
    else if (event === "error") this.#errorListeners.push(listener as (error: Error) => void);
    return this;
  }

  /** Registers a one-time drain listener (ByteStream). */
  once(_event: "drain", listener: () => void): this {
    this.#drain.push(listener);
    return this;
  }

  /** Starts reading, once the listeners are in place. */
  start(): void {
    void this.#read();
  }

  /** Queues bytes; false once more than 64 KiB wait (ByteStream). */
  write(chunk: Uint8Array): boolean {
    if (this.#closed || this.#ending) return false;
    this.#queue.push(chunk);
    this.#queued += chunk.length;
    if (!this.#writing) void this.#flush();
    return this.#queued < HIGH_WATER;
  }

  /** Closes once the queued bytes are written and the TLS close_notify sent (ByteStream). */
  end(): void {
    this.#ending = true;
    if (!this.#writing) void this.#finish();
  }

  /** Closes at once (ByteStream). */
  destroy(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch (error) {
      // Closed already (the peer reset it while a read was failing): what callers wait for is below.
      if (!(error instanceof Deno.errors.BadResource)) throw error;
    }
    for (const listener of this.#closeListeners) listener();
    this.#resolveClosed();
  }

  /**
   * Sends close_notify before closing: a bare close can drop what rustls still holds of the last answer (in
   * Deno 2.9.6, clients of a server that closed at once after writing lost 4 answers in 10).
   */
  async #finish(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#conn.closeWrite();
    } catch (error) {
      // The peer is gone already: there is nobody to tell.
      if (!(error instanceof Deno.errors.BadResource || error instanceof Deno.errors.NotConnected)) {
        for (const listener of this.#errorListeners) listener(error as Error);
      }
    }
    this.destroy();
  }

  async #read(): Promise<void> {
    const buffer = new Uint8Array(READ_SIZE);
    try {
      for (;;) {
        const n = await this.#conn.read(buffer);
        if (n === null || this.#closed) break;
        const chunk = buffer.slice(0, n);
        for (const listener of this.#data) listener(chunk);
      }
    } catch (error) {
      // A reset by the peer, or our own close while a read was pending: the connection is over.
      if (!this.#closed) { for (const listener of this.#errorListeners) listener(error as Error); }
    }
    this.destroy();
  }

  async #flush(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#queue.length > 0 && !this.#closed) {
        const chunk = this.#queue.shift()!;
        for (let at = 0; at < chunk.length;) at += await this.#conn.write(chunk.subarray(at));
        this.#queued -= chunk.length;
      }
    } catch (error) {
      if (!this.#closed) { for (const listener of this.#errorListeners) listener(error as Error); }
      this.destroy();
    } finally {
      this.#writing = false;
    }
    if (this.#ending) return await this.#finish();
    const drain = this.#drain;
    this.#drain = [];
    for (const listener of drain) listener();
  }
}
