import type { HttpResponse } from "./types.ts";

const decoder = new TextDecoder();

/** The HttpResponse the client returns: a parsed head and a lazily read body stream. */
export class ClientResponse implements HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly body: ReadableStream<Uint8Array>;

  /** Wraps an already parsed head and its body stream. */
  constructor(status: number, statusText: string, headers: Headers, body: ReadableStream<Uint8Array>) {
    this.status = status;
    this.statusText = statusText;
    this.headers = headers;
    this.body = body;
  }

  async bytes(): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of this.body) {
      chunks.push(chunk);
      total += chunk.length;
    }
    if (chunks.length === 1) return chunks[0]!;
    const out = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }

  async text(): Promise<string> {
    return decoder.decode(await this.bytes());
  }

  async cancel(): Promise<void> {
    await this.body.cancel();
  }
}
