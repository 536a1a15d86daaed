import { concat, dec, enc } from "./_helpers.ts";

/** One accepted server-side connection with helpers to script the bytes it sends. */
export class ServerConn {
  readonly conn: Deno.Conn;
  #buf: Uint8Array = new Uint8Array(0);

  constructor(conn: Deno.Conn) {
    this.conn = conn;
  }

  /** Reads one request head (and its Content-Length body); null if the client closed first. */
  async readRequest(): Promise<{ head: string; body: string } | null> {
    for (;;) {
      const text = dec.decode(this.#buf);
      const end = text.indexOf("\r\n\r\n");
      if (end !== -1) {
        const head = text.slice(0, end);
        const len = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? "0");
        if (this.#buf.length >= end + 4 + len) {
          const body = dec.decode(this.#buf.subarray(end + 4, end + 4 + len));
          this.#buf = this.#buf.slice(end + 4 + len);
          return { head, body };
        }
      }
      if (!(await this.#fill())) return null;
    }
  }

  /** Waits until the client closes its side (EOF or reset); returns true if it did. */
  async waitForClose(): Promise<boolean> {
    try {
      while (await this.#fill());
    } catch {
      // A reset is a close too.
    }
    return true;
  }

  async send(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === "string" ? enc.encode(data) : data;
    let at = 0;
    while (at < bytes.length) at += await this.conn.write(bytes.subarray(at));
  }

  close(): void {
    try {
      this.conn.close();
    } catch {
      // already closed
    }
  }

  async #fill(): Promise<boolean> {
    const chunk = new Uint8Array(4096);
    const n = await this.conn.read(chunk);
    if (n === null) return false;
    this.#buf = concat(this.#buf, chunk.subarray(0, n));
    return true;
  }
}

/**
 * A plain TCP server on 127.0.0.1 that runs `handle` for every accepted connection and counts them.
 * `close()` stops accepting, waits for handlers, and closes what is left.
 */
export class ScriptedServer {
  readonly listener: Deno.Listener;
  readonly accepted: ServerConn[] = [];
  readonly #handlers: Promise<void>[] = [];
  readonly #loop: Promise<void>;
  readonly errors: unknown[] = [];

  constructor(
    handle: (conn: ServerConn, index: number) => Promise<void>,
    listener: Deno.Listener = Deno.listen({ hostname: "127.0.0.1", port: 0 }),
  ) {
    this.listener = listener;
    this.#loop = (async () => {
      for await (const raw of listener) {
        const conn = new ServerConn(raw);
        const index = this.accepted.length;
        this.accepted.push(conn);
        this.#handlers.push(
          handle(conn, index).catch((err) => void this.errors.push(err)).finally(() => conn.close()),
        );
      }
    })();
  }

  get port(): number {
    return (this.listener.addr as Deno.NetAddr).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  #closed = false;

  /** Idempotent. */
  async close(): Promise<void> {
    if (!this.#closed) this.listener.close();
    this.#closed = true;
    await this.#loop.catch(() => {});
    await Promise.all(this.#handlers);
  }
}

/** Serves `response` to every request on a connection until the client closes it. */
export function keepAliveHandler(response: string): (conn: ServerConn) => Promise<void> {
  return async (conn) => {
    while (await conn.readRequest() !== null) await conn.send(response);
  };
}
