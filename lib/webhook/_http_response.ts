/**
 * An HTTP/1.1 response as bytes: status line, the two header fields the server sends, and the body, in one
 * buffer so the socket gets one write.
 * @module
 */

/** What a handler answers. */
export interface HttpResponse {
  /** Status code. */
  readonly status: number;
  /** Content-Type of `body`. */
  readonly contentType: string;
  /** The body. */
  readonly body: string | Uint8Array;
}

const REASONS: Readonly<Record<number, string>> = {
  100: "Continue",
  200: "OK",
  400: "Bad Request",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  411: "Length Required",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  417: "Expectation Failed",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
  505: "HTTP Version Not Supported",
};

const encoder = new TextEncoder();

/** `response` on the wire; without `keepAlive`, it says `connection: close`. */
export function responseBytes(response: HttpResponse, keepAlive: boolean): Uint8Array {
  const body = typeof response.body === "string" ? encoder.encode(response.body) : response.body;
  const head = `HTTP/1.1 ${response.status} ${REASONS[response.status] ?? "Unknown"}\r\n` +
    `content-type: ${response.contentType}\r\ncontent-length: ${body.length}\r\n` +
    (keepAlive ? "" : "connection: close\r\n") + "\r\n";
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(encoder.encode(head));
  bytes.set(body, head.length);
  return bytes;
}
