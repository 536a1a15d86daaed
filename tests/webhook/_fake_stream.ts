/**
 * A byte stream for driving one server connection by hand: the test sends bytes as a client would, reads
 * what the server wrote, and sees whether it closed.
 * @module
 */
import type { ByteStream } from "../../lib/webhook/_http_connection.ts";

/** The client's end of a fake connection. */
export class FakeStream implements ByteStream {
  /** Everything the server wrote, in order. */
  readonly written: Uint8Array[] = [];
  /** Set once the server ended (close_notify) or destroyed the stream. */
  endedBy: "end" | "destroy" | undefined;
  /** When false, write() reports a full buffer until `drain()`. */
  accepting = true;
  /** When true, ending or destroying emits no "close" (as node:tls sockets in Deno 2.9.6 sometimes do). */
  silentClose = false;
  #data: ((chunk: Uint8Array) => void)[] = [];
  #close: (() => void)[] = [];
  #drain: (() => void)[] = [];

  /** Registers a listener (ByteStream). */
  on(event: "data", listener: (chunk: Uint8Array) => void): this;
  on(event: "close", listener: () => void): this;
  on(event: "error", listener: (error: Error) => void): this;
  on(event: string, listener: (arg: never) => void): this {
    if (event === "data") this.#data.push(listener as (chunk: Uint8Array) => void);
    if (event === "close") this.#close.push(listener as () => void);
    return this;
  }

  /** Registers a drain listener (ByteStream). */
  once(_event: "drain", listener: () => void): this {
    this.#drain.push(listener);
    return this;
  }

  /** The server writes (ByteStream). */
  write(chunk: Uint8Array): boolean {
    this.written.push(chunk.slice());
    return this.accepting;
  }

  /** The server ends (ByteStream). */
  end(): void {
    this.#closeAs("end");
  }

  /** The server destroys (ByteStream). */
  destroy(): void {
    this.#closeAs("destroy");
  }

  /** The client sends `text` (or bytes). */
  send(data: string | Uint8Array): void {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    for (const listener of this.#data) listener(bytes);
  }

  /** The client reads what was buffered. */
  drain(): void {
    this.accepting = true;
    for (const listener of this.#drain.splice(0)) listener();
  }

  /** What the server wrote, as text. */
  get text(): string {
    return this.written.map((b) => new TextDecoder().decode(b)).join("");
  }

  /** The status codes of the responses written so far. */
  get statuses(): number[] {
    return [...this.text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  }

  #closeAs(how: "end" | "destroy"): void {
    if (this.endedBy !== undefined) return;
    this.endedBy = how;
    if (this.silentClose) return;
    for (const listener of this.#close) listener();
  }
}
