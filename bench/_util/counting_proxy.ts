/**
 * A TCP relay in front of a server that counts the connections opened through it: the benches point a
 * client at it to see how many new (TLS) connections the client makes. Bytes pass through untouched, so TLS
 * is end to end and the server's certificate (for 127.0.0.1) still matches.
 */

/** A running relay. */
export interface CountingProxy extends AsyncDisposable {
  /** Port on 127.0.0.1 to connect to instead of the server. */
  readonly port: number;
  /** Connections accepted so far. */
  readonly opened: number;
  /** Connections open now. */
  readonly open: number;
}

/** Relays every connection to 127.0.0.1:`port` to `target` until disposed. */
export function countingProxy(target: { hostname: string; port: number }): CountingProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const live = new Set<Deno.Conn>();
  const relays: Promise<void>[] = [];
  let opened = 0;
  let open = 0;
  const relay = async (inbound: Deno.Conn) => {
    opened++;
    open++;
    live.add(inbound);
    let outbound: Deno.Conn | undefined;
    try {
      outbound = await Deno.connect(target);
      live.add(outbound);
      // Either side closing ends both; errors are the peer going away.
      await Promise.race([
        inbound.readable.pipeTo(outbound.writable).catch(() => {}),
        outbound.readable.pipeTo(inbound.writable).catch(() => {}),
      ]);
    } catch {
      // the server refused: the client sees its connection closed
    } finally {
      open--;
      for (const conn of [inbound, outbound]) {
        if (!conn) continue;
        live.delete(conn);
        try {
          conn.close();
        } catch {
          // already closed by a pipe
        }
      }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) relays.push(relay(conn));
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    get opened() {
      return opened;
    },
    get open() {
      return open;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const conn of live) {
        try {
          conn.close();
        } catch {
          // closed meanwhile
        }
      }
      await Promise.all(relays);
    },
  };
}
