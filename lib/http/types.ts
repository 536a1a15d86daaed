/** TLS settings for HTTPS connections. All PEM strings; nothing is read from disk here. */
export interface TlsOptions {
  /**
   * The CA certificates (PEM) to trust instead of the system roots: when set, a server certificate
   * must chain to one of these, as in client-go. When absent or empty, the system roots are used.
   * @default {the system roots}
   */
  readonly caCerts?: readonly string[];
  /**
   * Client certificate chain (PEM) for mutual TLS. Needs `key`.
   * @default {no client certificate}
   */
  readonly cert?: string;
  /**
   * Client private key (PEM): RSA PKCS#1, RSA/EC PKCS#8 or EC SEC1. Needs `cert`.
   * @default {no client key}
   */
  readonly key?: string;
  /**
   * Skip server certificate verification. Only ever set from an explicit configuration.
   * @default {false}
   */
  readonly insecureSkipVerify?: boolean;
  /**
   * Name to verify the server certificate against, when it differs from the URL's host.
   * @default {the URL's host}
   */
  readonly serverName?: string;
}

/** One HTTP/1.1 request. */
export interface HttpRequest {
  /** The request method, e.g. "GET". */
  readonly method: string;
  /** An http: or https: URL; its path and query are sent. */
  readonly url: URL;
  /** Extra request headers; the client sets Host, User-Agent, Accept-Encoding and framing itself. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The request body; strings are sent as UTF-8. */
  readonly body?: Uint8Array | string;
  /** Aborts connecting, sending and reading the body. */
  readonly signal?: AbortSignal | undefined;
  /**
   * A gate consulted synchronously right before the first byte of the request is written: after
   * the connection is open and its TLS handshake done, in the same JavaScript task as the write
   * call (nothing is awaited between them), and again before each retry's first byte. Throwing
   * refuses the request: nothing is written, the connection is closed, the request is not retried,
   * and the error reaches the caller as it is. For conditions that depend on the time of sending
   * (a leadership fence), since connecting can take long. A Transport other than HttpClient must
   * call it the same way.
   * @default {none}
   */
  readonly beforeWrite?: () => void;
  /**
   * A long-lived streaming response (a watch): it gets a connection of its own that is never
   * returned to the pool, and no read timeout applies between body chunks.
   * @default {false}
   */
  readonly stream?: boolean;
}

/** A response whose head has been read; the body is read on demand. */
export interface HttpResponse {
  /** The status code, e.g. 200. */
  readonly status: number;
  /** The reason phrase, possibly empty. */
  readonly statusText: string;
  /** The response header fields. */
  readonly headers: Headers;
  /** The body with transfer coding (chunked) and content coding (gzip) removed. */
  readonly body: ReadableStream<Uint8Array>;
  /** Reads the whole body. */
  bytes(): Promise<Uint8Array>;
  /** Reads the whole body as UTF-8. */
  text(): Promise<string>;
  /** Stops reading and releases the connection (closed, unless the body was fully read). */
  cancel(): Promise<void>;
}

/** Sends requests. The REST client depends only on this, so tests can script it. */
export interface Transport {
  /** Sends one request and resolves once the response head has arrived. */
  request(request: HttpRequest): Promise<HttpResponse>;
  /** Closes idle connections; requests in flight finish. */
  close(): void;
}
