/**
 * Byte-for-byte forwarding between TCP and Unix sockets. The rehearsed pod has its own network namespace
 * (loopback only); Unix sockets in a host folder are the one path in and out, as kube-proxy and the
 * kubelet's probes are for a real pod:
 *   pod → apiserver:  tcp 10.0.0.1:443 (in the pod) → unix socket → tcp 127.0.0.1:<apiserver port> (host)
 *   host → pod:       tcp 127.0.0.1:<free port> (host) → unix socket → tcp <pod IP>:<port> (in the pod)
 * Run as a program (inside the pod's namespaces) as `bridge.ts READY_FILE STOP_PID LISTEN=CONNECT...`,
 * endpoints written "tcp:HOST:PORT" or "unix:PATH": it creates READY_FILE once every route listens. Its
 * stdin is a pipe from the test; when that ends (the test is gone, even killed) it sends SIGTERM to
 * STOP_PID (1 inside the pod's PID namespace: the pod's process), so no pod outlives its test.
 */

/** One side of a route. */
export type Endpoint =
  | { readonly transport: "tcp"; readonly hostname: string; readonly port: number }
  | { readonly transport: "unix"; readonly path: string };

/** Parses "tcp:HOST:PORT" or "unix:PATH". */
export function parseEndpoint(text: string): Endpoint {
  if (text.startsWith("unix:")) return { transport: "unix", path: text.slice(5) };
  const m = /^tcp:(.+):(\d+)$/.exec(text);
  if (!m) throw new TypeError(`endpoint "${text}" is neither tcp:HOST:PORT nor unix:PATH`);
  return { transport: "tcp", hostname: m[1]!, port: Number(m[2]) };
}

/** A listening route; closing it closes the listener and every forwarded connection. */
export interface Forwarder extends AsyncDisposable {
  /** Where it listens (with the real port when asked for port 0). */
  readonly listening: Endpoint;
}

function listen(at: Endpoint): Deno.Listener {
  return at.transport === "tcp"
    ? Deno.listen({ hostname: at.hostname, port: at.port })
    : Deno.listen({ transport: "unix", path: at.path });
}

function connect(to: Endpoint): Promise<Deno.Conn> {
  return to.transport === "tcp"
    ? Deno.connect({ hostname: to.hostname, port: to.port })
    : Deno.connect({ transport: "unix", path: to.path });
}

/**
 * Copies `from` into `to` until `from` ends, then half-closes `to` so the peer sees the end too. A failure
 * on either side rejects, so the caller can tear down both connections.
 */
async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await from.read(buf);
    if (n === null) break;
    let off = 0;
    while (off < n) off += await to.write(buf.subarray(off, n));
  }
  await to.closeWrite();
}

/** Starts forwarding every connection accepted at `at` to a new connection to `to`. */
export function forward(at: Endpoint, to: Endpoint): Forwarder {
  const listener = listen(at);
  const conns = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  const serve = async (inbound: Deno.Conn) => {
    conns.add(inbound);
    let outbound: Deno.Conn | undefined;
    const closeBoth = () => {
      for (const c of [inbound, outbound]) {
        if (c && conns.delete(c)) c.close();
      }
    };
    try {
      outbound = await connect(to);
      conns.add(outbound);
      const out = outbound;
      // A reset on either side closes both (in finally), which also ends the other direction's read.
      await Promise.all([pump(inbound, out), pump(out, inbound)].map((p) => p.catch(() => closeBoth())));
    } catch {
      // The target refused: dropping the inbound connection tells the client, as a refused port would.
    } finally {
      closeBoth();
    }
  };
  const accepting = (async () => {
    try {
      for await (const inbound of listener) {
        const task = serve(inbound);
        tasks.add(task);
        task.finally(() => tasks.delete(task));
      }
    } catch {
      // The listener was closed.
    }
  })();
  const addr = listener.addr;
  const listening: Endpoint = addr.transport === "unix"
    ? { transport: "unix", path: (addr as Deno.UnixAddr).path }
    : { transport: "tcp", hostname: (addr as Deno.NetAddr).hostname, port: (addr as Deno.NetAddr).port };
  return {
    listening,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const c of conns) c.close();
      conns.clear();
      await Promise.all(tasks);
    },
  };
}

if (import.meta.main) {
  const [ready, stopPid, ...routes] = Deno.args;
  if (!ready || !Number(stopPid) || routes.length === 0) {
    throw new TypeError("usage: bridge.ts READY_FILE STOP_PID LISTEN=CONNECT...");
  }
  for (const route of routes) {
    const [at = "", to = ""] = route.split("=");
    forward(parseEndpoint(at), parseEndpoint(to));
  }
  await Deno.writeTextFile(ready, "");
  for await (const _ of Deno.stdin.readable) { /* only the end matters */ }
  Deno.kill(Number(stopPid), "SIGTERM");
  Deno.exit(0);
}
