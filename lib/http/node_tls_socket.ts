import type { TLSSocket } from "node:tls";
import type { ByteSocket } from "./connection.ts";

// Stop pulling from the socket while this much is buffered and unread.
const PAUSE_BYTES = 256 * 1024;

/**
 * Adapts a node:tls socket to the pull-style ByteSocket. Incoming data is queued (with
 * backpressure via pause/resume) until `read` asks for it.
 */
export class NodeTlsSocket implements ByteSocket {
  readonly #socket: TLSSocket;
  readonly #queue: Uint8Array[] = [];
  #queued = 0;
  #ended = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;

  /** Takes ownership of a connected (or connecting) socket. */
  constructor(socket: TLSSocket) {
    this.#socket = socket;
    socket.on("data", (data: Uint8Array) => {
      this.#queue.push(data);
      this.#queued += data.length;
      if (this.#queued >= PAUSE_BYTES) socket.pause();
      this.#notify();
    });
    socket.on("end", () => {
      this.#ended = true;
      this.#notify();
    });
    socket.on("close", () => {
      this.#ended = true;
      this.#notify();
    });
    socket.on("error", (err: Error) => {
      this.#error ??= err;
      this.#notify();
    });
  }

  async read(p: Uint8Array): Promise<number | null> {
    while (this.#queue.length === 0) {
      if (this.#error !== undefined) throw this.#error;
      if (this.#ended) return null;
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
    const head = this.#queue[0]!;
    const n = Math.min(head.length, p.length);
    p.set(n === head.length ? head : head.subarray(0, n));
    if (n === head.length) this.#queue.shift();
    else this.#queue[0] = head.subarray(n);
    this.#queued -= n;
    if (this.#queued < PAUSE_BYTES && this.#socket.isPaused()) this.#socket.resume();
    return n;
  }

  write(p: Uint8Array): Promise<number> {
    if (this.#error !== undefined) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => {
      this.#socket.write(p, (err?: Error | null) => err ? reject(err) : resolve(p.length));
    });
  }

  ref(): void {
    this.#socket.ref();
  }

  unref(): void {
    this.#socket.unref();
  }

  close(): void {
    this.#ended = true;
    this.#socket.destroy();
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
