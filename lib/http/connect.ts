import { type ByteSocket, Connection } from "./connection.ts";
import { ConnectError, TimeoutError, TlsError } from "./errors.ts";
import type { TlsConnector } from "./tls.ts";
import { describeTlsFailure, isTlsFailure } from "./tls_failure.ts";

/** What opening a connection needs. */
export interface ConnectOptions {
  readonly tls: TlsConnector;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Opens a TCP or TLS connection to `url`'s origin, within `timeoutMs` and until `signal` aborts.
 * A socket that completes after a timeout or abort is closed at once.
 * @throws {ConnectError} {TlsError} {TimeoutError}, or the abort reason.
 */
export function openConnection(url: URL, options: ConnectOptions): Promise<Connection> {
  const origin = url.origin;
  const secure = url.protocol === "https:";
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === "" ? (secure ? 443 : 80) : Number(url.port);
  const { signal, timeoutMs } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);

  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = () => {
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      if (settled) return;
      finish();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      if (settled) return;
      finish();
      reject(new TimeoutError(`Cannot connect to ${origin}: timed out after ${timeoutMs} ms`, origin));
    }, timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });

    const socket: Promise<ByteSocket> = secure
      ? options.tls.connect(hostname, port)
      : Deno.connect({ hostname, port, transport: "tcp" });
    socket.then(
      (s) => {
        if (settled) {
          s.close();
          return;
        }
        finish();
        resolve(new Connection(s, origin, secure));
      },
      (err: unknown) => {
        if (settled) return;
        finish();
        reject(connectFailure(err, origin, secure));
      },
    );
  });
}

function connectFailure(err: unknown, origin: string, secure: boolean): Error {
  if (secure && isTlsFailure(err)) {
    return new TlsError(`Cannot connect to ${origin}: ${describeTlsFailure(err)}`, origin, { cause: err });
  }
  let detail = err instanceof Error ? err.message : String(err);
  if (err instanceof Deno.errors.ConnectionRefused || /ECONNREFUSED|refused/i.test(detail)) {
    detail = "connection refused";
  } else if (/lookup|resolve|ENOTFOUND|dns/i.test(detail)) {
    detail = `cannot resolve host: ${detail}`;
  }
  return new ConnectError(`Cannot connect to ${origin}: ${detail}`, origin, { cause: err });
}
