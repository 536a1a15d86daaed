import type { ByteSocket } from "../../lib/http/connection.ts";

export const enc = new TextEncoder();
export const dec = new TextDecoder();

/** Every way to cut `bytes` in two, plus one-byte pieces and the whole. */
export function* splits(bytes: Uint8Array): Generator<Uint8Array[]> {
  yield [bytes];
  for (let i = 1; i < bytes.length; i++) yield [bytes.subarray(0, i), bytes.subarray(i)];
  const ones: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i++) ones.push(bytes.subarray(i, i + 1));
  yield ones;
}

/** A socket that yields `pieces` one read at a time (copied into the reader's buffer), then EOF. */
export class ScriptedSocket implements ByteSocket {
  readonly written: Uint8Array[] = [];
  closed = false;
  #pieces: Uint8Array[];

  constructor(pieces: Uint8Array[]) {
    this.#pieces = [...pieces];
  }

  read(p: Uint8Array): Promise<number | null> {
    const next = this.#pieces.shift();
    if (next === undefined) return Promise.resolve(null);
    const n = Math.min(next.length, p.length);
    p.set(next.subarray(0, n));
    if (n < next.length) this.#pieces.unshift(next.subarray(n));
    return Promise.resolve(n);
  }

  write(p: Uint8Array): Promise<number> {
    this.written.push(p.slice());
    return Promise.resolve(p.length);
  }

  close(): void {
    this.closed = true;
  }
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Reads a stream to the end and concatenates it. */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of stream) parts.push(part);
  return concat(...parts);
}
