/**
 * A slow TLS peer for tests: a TCP proxy in front of a TLS server that holds back everything the server
 * sends on a new connection for `delayMs`, so the client's handshake takes at least that long. The
 * client's bytes pass at once. Everything after the delay flows both ways unhindered.
 */
export class SlowHandshakeProxy {
  readonly #listener: Deno.Listener;
  readonly #conns = new Set<Deno.Conn>();
  readonly #tasks = new Set<Promise<void>>();
  readonly #loop: Promise<void>;

  /** Proxies to `127.0.0.1:targetPort`. */
  constructor(targetPort: number, delayMs: number) {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    this.#listener = listener;
    this.#loop = (async () => {
      for await (const client of listener) this.#track(this.#relay(client, targetPort, delayMs));
    })();
  }

  /** The port clients connect to. */
  get port(): number {
    return (this.#listener.addr as Deno.NetAddr).port;
  }

  /** Stops accepting and closes every proxied connection. */
  async close(): Promise<void> {
    this.#listener.close();
    await this.#loop.catch(() => {});
    for (const conn of this.#conns) closeQuietly(conn);
    await Promise.all(this.#tasks);
  }

  async #relay(client: Deno.Conn, targetPort: number, delayMs: number): Promise<void> {
    this.#conns.add(client);
    let server: Deno.Conn;
    try {
      server = await Deno.connect({ hostname: "127.0.0.1", port: targetPort });
    } catch {
      closeQuietly(client);
      return;
    }
    this.#conns.add(server);
    const up = pipe(client, server);
    const down = (async () => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await pipe(server, client);
    })();
    await Promise.all([up, down]);
  }

  #track(task: Promise<void>): void {
    this.#tasks.add(task);
    task.finally(() => this.#tasks.delete(task));
  }
}

async function pipe(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(16 * 1024);
  try {
    for (;;) {
      const n = await from.read(buf);
      if (n === null) break;
      let at = 0;
      while (at < n) at += await to.write(buf.subarray(at, n));
    }
  } catch {
    // Either side closed: the relay is over.
  }
  closeQuietly(from);
  closeQuietly(to);
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}
