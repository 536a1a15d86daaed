/**
 * The head of an HTTP/1.1 request, parsed strictly: the webhook server answers one client, kube-apiserver,
 * and refuses anything a conforming client would not send rather than guessing.
 * @module
 */

/** A request head. */
export interface RequestHead {
  /** e.g. "POST". */
  readonly method: string;
  /** The origin-form target, e.g. "/validate/foos.example.com?timeout=10s". */
  readonly target: string;
  /** The path of `target`, without the query. */
  readonly path: string;
  /** "HTTP/1.1" or "HTTP/1.0". */
  readonly version: "HTTP/1.1" | "HTTP/1.0";
  /** Header fields by lower-case name; repeated fields joined with ", ". */
  readonly headers: ReadonlyMap<string, string>;
  /** The body's length (0 without Content-Length). */
  readonly contentLength: number;
  /** Whether the connection may serve another request after this one. */
  readonly keepAlive: boolean;
  /** The client asked for "100 Continue" before sending the body. */
  readonly expectContinue: boolean;
}

/** A request the server refuses, with the status to answer. The connection is closed after the answer. */
export class HttpRequestError extends Error {
  /** HTTP status code to answer with. */
  readonly status: number;
  /** `status` is the HTTP status code of the answer. */
  constructor(status: number, message: string) {
    super(message);
    this.name = "HttpRequestError";
    this.status = status;
  }
}

// latin1: one character per byte, so no byte sequence can fail to decode or hide a CR or LF.
const LATIN1 = new TextDecoder("latin1");
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Visible ASCII, spaces and tabs, and obs-text; no control characters.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Where the head in `bytes` ends: the index just past its blank line (CRLF CRLF), or -1 while incomplete.
 * Only CRLF line ends count.
 */
export function headEnd(bytes: Uint8Array, from = 0): number {
  for (let i = Math.max(0, from - 3); i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i + 4;
  }
  return -1;
}

/**
 * Parses a head (the bytes up to and including its blank line). Throws {@linkcode HttpRequestError}: 400 for
 * a malformed line, a bare LF, folded or duplicated-and-conflicting fields, or a bad Content-Length; 411 for
 * a Transfer-Encoding (bodies need a Content-Length here); 417 for an Expect other than 100-continue; 505
 * for a version other than HTTP/1.0 and 1.1.
 */
export function parseHead(bytes: Uint8Array): RequestHead {
  const text = LATIN1.decode(bytes);
  if (!text.endsWith("\r\n\r\n")) {
    throw new HttpRequestError(400, "the request head does not end with CRLF CRLF");
  }
  const lines = text.slice(0, -4).split("\r\n");
  if (lines.some((line) => line.includes("\n") || line.includes("\r"))) {
    throw new HttpRequestError(400, "a line of the request head ends with a bare CR or LF");
  }
  const [method, target, version, extra] = lines[0]!.split(" ");
  if (extra !== undefined || !method || !target || !version || !TOKEN.test(method)) {
    throw new HttpRequestError(400, "malformed request line");
  }
  if (!/^HTTP\/\d\.\d$/.test(version)) throw new HttpRequestError(400, "malformed request line");
  if (version !== "HTTP/1.1" && version !== "HTTP/1.0") {
    throw new HttpRequestError(505, `${version} is not supported; use HTTP/1.1`);
  }
  if (!target.startsWith("/") || !/^[\x21-\x7e]+$/.test(target)) {
    throw new HttpRequestError(400, "the request target must be a path");
  }
  const headers = new Map<string, string>();
  let lengths: string | undefined;
  for (const line of lines.slice(1)) {
    if (line.startsWith(" ") || line.startsWith("\t")) {
      throw new HttpRequestError(400, "folded header lines are not allowed");
    }
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name)) throw new HttpRequestError(400, "malformed header line");
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    if (!FIELD_VALUE.test(value)) throw new HttpRequestError(400, "a header value holds control characters");
    const key = name.toLowerCase();
    if (key === "content-length") {
      if (lengths !== undefined && lengths !== value) {
        throw new HttpRequestError(400, "conflicting Content-Length fields");
      }
      lengths = value;
    }
    const previous = headers.get(key);
    headers.set(key, previous === undefined ? value : `${previous}, ${value}`);
  }
  if (headers.has("transfer-encoding")) {
    throw new HttpRequestError(411, "Transfer-Encoding is not accepted; send the body with a Content-Length");
  }
  let contentLength = 0;
  if (lengths !== undefined) {
    if (!/^[0-9]{1,15}$/.test(lengths)) throw new HttpRequestError(400, "Content-Length is not a number");
    contentLength = Number(lengths);
  }
  const expect = headers.get("expect")?.toLowerCase();
  if (expect !== undefined && expect !== "100-continue") {
    throw new HttpRequestError(417, "only Expect: 100-continue is supported");
  }
  const connection = (headers.get("connection") ?? "").toLowerCase().split(",").map((t) => t.trim());
  const keepAlive = version === "HTTP/1.1"
    ? !connection.includes("close")
    : connection.includes("keep-alive");
  const query = target.indexOf("?");
  return {
    method,
    target,
    path: query === -1 ? target : target.slice(0, query),
    version,
    headers,
    contentLength,
    keepAlive,
    expectContinue: expect === "100-continue",
  };
}
