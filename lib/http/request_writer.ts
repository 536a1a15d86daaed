/** Serialises an HTTP/1.1 request head. Pure: no I/O. */

/** What the writer needs to know about one request. */
export interface RequestHeadInit {
  readonly method: string;
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Body length in bytes; `undefined` means no body. */
  readonly bodyLength?: number | undefined;
  readonly userAgent: string;
  /** Ask the server to close the connection after the response (sent as `Connection: close`). */
  readonly close?: boolean;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// CR, LF and NUL would let a value smuggle extra header lines or a second request.
const FORBIDDEN_VALUE = /[\r\n\0]/;
// The client owns message framing; letting callers set these could desynchronise the connection.
const MANAGED = new Set(["content-length", "transfer-encoding", "connection"]);
const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);
const encoder = new TextEncoder();

/**
 * Returns the request line and headers, ending in the blank line. Adds Host, User-Agent,
 * `Accept-Encoding: gzip` (unless the caller set them), Content-Length and, when asked,
 * `Connection: close`.
 * @throws {TypeError} on an invalid method, header name, or a header value holding CR, LF or NUL.
 */
export function writeRequestHead(init: RequestHeadInit): Uint8Array {
  const { method, url } = init;
  if (!TOKEN.test(method)) throw new TypeError(`Invalid HTTP method ${JSON.stringify(method)}`);
  let host = true, userAgent = true, acceptEncoding = true;
  let lines = "";
  const headers = init.headers;
  if (headers !== undefined) {
    for (const name in headers) {
      const value = headers[name] ?? "";
      if (!TOKEN.test(name)) throw new TypeError(`Invalid HTTP header name ${JSON.stringify(name)}`);
      if (FORBIDDEN_VALUE.test(value)) {
        throw new TypeError(`Invalid value for HTTP header "${name}": it contains CR, LF or NUL`);
      }
      const lower = name.toLowerCase();
      if (MANAGED.has(lower)) {
        throw new TypeError(`HTTP header "${name}" is set by the client and cannot be given`);
      }
      if (lower === "host") host = false;
      else if (lower === "user-agent") userAgent = false;
      else if (lower === "accept-encoding") acceptEncoding = false;
      lines += `${name}: ${value.trim()}\r\n`;
    }
  }
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  if (host) head += `Host: ${url.host}\r\n`;
  if (userAgent) head += `User-Agent: ${init.userAgent}\r\n`;
  if (acceptEncoding) head += "Accept-Encoding: gzip\r\n";
  head += lines;
  if (init.bodyLength !== undefined) head += `Content-Length: ${init.bodyLength}\r\n`;
  else if (METHODS_WITH_BODY.has(method)) head += "Content-Length: 0\r\n";
  if (init.close === true) head += "Connection: close\r\n";
  head += "\r\n";
  return encoder.encode(head);
}
