/**
 * A TCP proxy on 127.0.0.1 that forwards bytes unchanged (TLS included) to one target and injects
 * network faults on demand, counting each. The proxy only provides the mechanism; what to break and
 * when is decided by its user (see tests/reliability/_chaos.ts for the random schedule).
 *
 * Faults, per connection ("link"):
 * - reset: both sockets are closed with a TCP RST (the peers see ECONNRESET);
 * - stall: nothing is forwarded in either direction for a while, the sockets stay open and
 *   unread bytes back up in the kernel buffers; then forwarding resumes and nothing is lost;
 * - blackhole: from now on every byte in both directions is dropped without closing, like a
 *   network path that went dead (the peers only notice through their own timeouts); a peer's close
 *   is lost on that path too, so the other peer sees nothing until it gives up itself, or until
 *   `heal()` resets the link;
 * - latency: every chunk is delivered this many ms after it arrived (order kept);
 * - half-close: one direction is finished with a FIN while the other stays open ("toClient": the
 *   client reads EOF, "toServer": the server does).
 */
import net from "node:net";

/** The fault kinds, as counted. */
export type FaultKind =
  | "reset"
  | "stall"
  | "blackhole"
  | "latency"
  | "halfCloseToClient"
  | "halfCloseToServer";

/** What the proxy has seen and done so far. */
export interface FaultProxyCounters {
  /** Connections accepted. */
  connections: number;
  /** Accepted connections whose target could not be reached (closed at once with a RST). */
  refused: number;
  /** Bytes forwarded to the target / to the clients. */
  bytesToServer: number;
  bytesToClient: number;
  /** Faults injected, by kind. */
  faults: Record<FaultKind, number>;
}

/** One proxied connection. */
export interface Link {
  /** 1, 2, ... in accept order. */
  readonly id: number;
  /** Unix ms when it was accepted. */
  readonly openedAt: number;
  /** Bytes the target has sent on this link so far (a watch or list answer is large). */
  readonly bytesToClient: number;
  /** True once a blackhole or reset hit it. */
  readonly broken: boolean;
}

/** A chunk waiting for its delivery time. */
interface Pending {
  readonly due: number;
  readonly bytes: Uint8Array;
}

/** One direction of a link. */
class Pipe {
  readonly queue: Pending[] = [];
  open = true;
  timer: ReturnType<typeof setTimeout> | undefined;
  constructor(readonly from: net.Socket, readonly to: net.Socket) {}
}

class ProxyLink implements Link {
  readonly id: number;
  readonly openedAt = Date.now();
  bytesToClient = 0;
  broken = false;
  latencyMs = 0;
  stalledUntil = 0;
  blackholed = false;
  closed = false;
  readonly up: Pipe;
  readonly down: Pipe;
  #stallTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #counters: FaultProxyCounters;
  readonly #onClose: (link: ProxyLink) => void;

  constructor(
    id: number,
    readonly client: net.Socket,
    readonly server: net.Socket,
    counters: FaultProxyCounters,
    onClose: (link: ProxyLink) => void,
  ) {
    this.id = id;
    this.up = new Pipe(client, server);
    this.down = new Pipe(server, client);
    this.#counters = counters;
    this.#onClose = onClose;
    for (const pipe of [this.up, this.down]) {
      pipe.from.on("data", (chunk: Uint8Array) => this.#arrive(pipe, chunk));
      pipe.from.on("end", () => this.#ended(pipe));
      pipe.from.on("error", () => this.#gone(pipe));
      pipe.from.on("close", () => this.#gone(pipe));
      pipe.to.on("drain", () => this.#flush(pipe));
    }
  }

  get stalled(): boolean {
    return Date.now() < this.stalledUntil;
  }

  stall(ms: number): void {
    this.stalledUntil = Math.max(this.stalledUntil, Date.now() + ms);
    this.client.pause();
    this.server.pause();
    clearTimeout(this.#stallTimer);
    this.#stallTimer = setTimeout(() => this.unstall(), this.stalledUntil - Date.now());
  }

  unstall(): void {
    clearTimeout(this.#stallTimer);
    this.#stallTimer = undefined;
    this.stalledUntil = 0;
    if (this.closed) return;
    this.client.resume();
    this.server.resume();
    this.#flush(this.up);
    this.#flush(this.down);
  }

  blackhole(): void {
    this.blackholed = true;
    this.broken = true;
    this.up.queue.length = 0;
    this.down.queue.length = 0;
    this.unstall();
  }

  halfClose(direction: "toClient" | "toServer"): void {
    const pipe = direction === "toClient" ? this.down : this.up;
    if (!pipe.open) return;
    pipe.open = false;
    pipe.queue.length = 0;
    pipe.to.end();
  }

  reset(): void {
    if (this.closed) return;
    this.broken = true;
    for (const socket of [this.client, this.server]) if (!socket.destroyed) socket.resetAndDestroy();
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.#stallTimer);
    for (const pipe of [this.up, this.down]) {
      clearTimeout(pipe.timer);
      pipe.queue.length = 0;
    }
    this.client.destroy();
    this.server.destroy();
    this.#onClose(this);
  }

  #arrive(pipe: Pipe, chunk: Uint8Array): void {
    if (this.blackholed || !pipe.open) return;
    pipe.queue.push({ due: Date.now() + this.latencyMs, bytes: new Uint8Array(chunk) });
    this.#flush(pipe);
  }

  /** `pipe`'s source closed or failed: on a dead path the other peer hears nothing of it. */
  #gone(pipe: Pipe): void {
    if (this.blackholed && !pipe.to.destroyed) {
      pipe.from.destroy();
      return;
    }
    this.close();
  }

  #ended(pipe: Pipe): void {
    if (this.blackholed) {
      this.#gone(pipe);
      return;
    }
    // Pass the FIN on once everything before it is delivered.
    pipe.queue.push({ due: Date.now() + this.latencyMs, bytes: new Uint8Array(0) });
    this.#flush(pipe);
  }

  #flush(pipe: Pipe): void {
    clearTimeout(pipe.timer);
    pipe.timer = undefined;
    if (this.closed || this.blackholed || this.stalled) return;
    const now = Date.now();
    while (pipe.queue.length > 0) {
      const head = pipe.queue[0]!;
      if (head.due > now) {
        pipe.timer = setTimeout(() => this.#flush(pipe), head.due - now);
        return;
      }
      pipe.queue.shift();
      if (head.bytes.length === 0) {
        if (pipe.open) pipe.to.end();
        pipe.open = false;
        if (!this.up.open && !this.down.open) this.close();
        return;
      }
      if (!pipe.open) continue;
      if (pipe === this.down) {
        this.bytesToClient += head.bytes.length;
        this.#counters.bytesToClient += head.bytes.length;
      } else {
        this.#counters.bytesToServer += head.bytes.length;
      }
      if (!pipe.to.write(head.bytes)) {
        pipe.from.pause(); // back-pressure; 'drain' flushes again
        return;
      }
    }
    if (!this.stalled) pipe.from.resume();
  }
}

/** Options of {@linkcode FaultProxy.start}. */
export interface FaultProxyOptions {
  /** Where connections go. */
  readonly target: { readonly hostname: string; readonly port: number };
  /** Added to every new connection. @default 0 */
  readonly latencyMs?: number;
}

/** The proxy; dispose it to close the listener and every link. */
export class FaultProxy implements AsyncDisposable {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  /** Counters, updated live. */
  readonly counters: FaultProxyCounters = {
    connections: 0,
    refused: 0,
    bytesToServer: 0,
    bytesToClient: 0,
    faults: { reset: 0, stall: 0, blackhole: 0, latency: 0, halfCloseToClient: 0, halfCloseToServer: 0 },
  };
  /** Latency given to new links. */
  latencyMs: number;
  readonly #server: net.Server;
  readonly #links = new Set<ProxyLink>();
  readonly #target: { readonly hostname: string; readonly port: number };
  #nextId = 1;

  private constructor(server: net.Server, port: number, options: FaultProxyOptions) {
    this.#server = server;
    this.port = port;
    this.#target = options.target;
    this.latencyMs = options.latencyMs ?? 0;
    server.on("connection", (socket: net.Socket) => this.#accept(socket));
  }

  /** Listens on 127.0.0.1 (a free port) and forwards to `options.target`. */
  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    // Half-open allowed: a FIN is passed on by the link, not answered by node on its own.
    const server = net.createServer({ pauseOnConnect: true, allowHalfOpen: true });
    const port = await new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port));
    });
    return new FaultProxy(server, port, options);
  }

  /** The open links, oldest first. */
  links(): Link[] {
    return [...this.#links];
  }

  /** Resets one link (RST to both peers). */
  reset(link: Link): void {
    this.#count(link, "reset", (l) => l.reset());
  }

  /** Forwards nothing on `link` for `ms`, without closing it. */
  stall(link: Link, ms: number): void {
    this.#count(link, "stall", (l) => l.stall(ms));
  }

  /** Drops every byte on `link` from now on, without closing it. */
  blackhole(link: Link): void {
    this.#count(link, "blackhole", (l) => l.blackhole());
  }

  /** Delays every chunk on `link` by `ms` from now on. */
  addLatency(link: Link, ms: number): void {
    this.#count(link, "latency", (l) => void (l.latencyMs = ms));
  }

  /** Finishes one direction of `link` with a FIN. */
  halfClose(link: Link, direction: "toClient" | "toServer"): void {
    this.#count(
      link,
      direction === "toClient" ? "halfCloseToClient" : "halfCloseToServer",
      (l) => l.halfClose(direction),
    );
  }

  /**
   * Ends every fault in force: stalls resume, latency goes, blackholed links are reset (a network
   * that heals answers a forgotten connection's next packet with a RST). Half-closed links stay as
   * they are: their peers saw the FIN already.
   */
  heal(): void {
    this.latencyMs = 0;
    for (const link of [...this.#links]) {
      link.latencyMs = 0;
      if (link.blackholed) link.reset();
      else link.unstall();
    }
  }

  /** Total faults injected so far. */
  get faultsInjected(): number {
    return Object.values(this.counters.faults).reduce((a, b) => a + b, 0);
  }

  /** Closes the listener and every link. */
  async [Symbol.asyncDispose](): Promise<void> {
    for (const link of [...this.#links]) link.close();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #count(link: Link, kind: FaultKind, act: (l: ProxyLink) => void): void {
    const l = link as ProxyLink;
    if (l.closed || !this.#links.has(l)) return;
    this.counters.faults[kind]++;
    act(l);
  }

  #accept(client: net.Socket): void {
    this.counters.connections++;
    const id = this.#nextId++;
    const server = net.connect({ host: this.#target.hostname, port: this.#target.port, allowHalfOpen: true });
    server.setNoDelay(true);
    const early = () => server.destroy();
    client.once("error", early);
    client.setNoDelay(true);
    const refuse = () => {
      this.counters.refused++;
      client.resetAndDestroy();
      server.destroy();
    };
    server.once("error", refuse);
    server.once("connect", () => {
      server.off("error", refuse);
      client.off("error", early);
      if (client.destroyed) {
        server.destroy();
        return;
      }
      const link = new ProxyLink(id, client, server, this.counters, (l) => this.#links.delete(l));
      link.latencyMs = this.latencyMs;
      this.#links.add(link);
      client.resume();
    });
  }
}
