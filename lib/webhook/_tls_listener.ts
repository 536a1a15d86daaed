/**
 * The webhook server's TLS listener, on `Deno.listenTls` (rustls, handshakes in Rust).
 *
 * Why not `node:tls`, which can replace a certificate in place: the server first ran on it, and under
 * kube-apiserver's connection pattern at 500 reviews/s its Deno 2.9.6 implementation stalled the event loop
 * (40-190 ms a second), the API server opened connections by the hundred to make up, and calls failed;
 * on `Deno.listenTls` the same run kept the loop lag under 5 ms, about 15 connections open, and no call
 * failed (bench/RESULTS.md, "Admission webhooks").
 *
 * What that costs, both from Deno 2.9.6 and both measured:
 * - A certificate change replaces the listener: the old one is closed and the new one bound to the same
 *   address as soon as the old one's pending accept is cancelled, one turn of the event loop later (about
 *   3 ms); connections already accepted keep their certificate. A connection the kernel had queued on the
 *   old listener but nobody had accepted yet, or one that arrives in those milliseconds, is refused or
 *   reset: the API server's failure policy answers for that call, once per certificate rotation. Kept-alive
 *   connections, which is how the API server sends most reviews, are not touched.
 * - A TLS handshake cannot be timed out: closing a connection while its server handshake is pending leaks
 *   the socket for good (its file descriptor outlives the client's own close). Handshakes in progress are
 *   bounded in number instead (`maxHandshakes`): at the bound the listener stops accepting, so new
 *   connections wait in the kernel's accept queue (and, once it is full, clients retry their SYN) until a
 *   handshake ends, while the connections already established (the API server keeps a pool of them) go on
 *   being served. A stalled handshake ends, and frees its slot, when its client closes. Closing the
 *   connections beyond the bound instead, as this did first, fed a spiral on a loaded machine: each refused
 *   connection failed a call, the API server dialled more, and at 500 reviews/s up to a quarter of the calls
 *   failed (EOF) where controller-runtime's lost none.
 * @module
 */
import { type CertificateSource, checkTlsMaterial } from "../observe/certificate_source.ts";
import type { TlsMaterial } from "../x509/self_signed.ts";
import type { Logger } from "../log/logger.ts";
import { ConnStream } from "./_conn_stream.ts";

/** Options of {@linkcode listenTls}. */
export interface TlsListenOptions {
  /** Interface to bind. */
  hostname: string;
  /** Port; 0 picks a free one, kept across certificate changes. */
  port: number;
  /** The certificate, followed as it changes. */
  certificates: CertificateSource;
  /** Connections in their TLS handshake at once; at this many, the next wait to be accepted. */
  maxHandshakes: number;
  /** Connections (handshaking or served) beyond this many are closed as they arrive. */
  maxConnections: number;
  /** Receives every connection that completed its handshake, before anything is read from it. */
  onSocket: (socket: ConnStream) => void;
  /** Told about each connection refused before HTTP. */
  onRefused: (reason: "handshake" | "max-connections") => void;
  /** Certificate reload lines. */
  logger: Logger;
}

/** A bound listener. */
export interface TlsListener {
  /** The bound address. */
  readonly hostname: string;
  /** The bound port. */
  readonly port: number;
  /** Stops accepting; connections already accepted stay open. */
  close(): void;
}

/** Binds and listens; throws when the address cannot be bound. */
export function listenTls(options: TlsListenOptions): TlsListener {
  const { logger } = options;
  let open = 0;
  let handshaking = 0;
  let closed = false;
  const bind = (port: number, material: TlsMaterial) =>
    Deno.listenTls({
      hostname: options.hostname,
      port,
      cert: material.cert,
      key: material.key,
      alpnProtocols: ["http/1.1"],
    });

  // Accept loops waiting for a handshake slot (two for a moment while a certificate change swaps listeners).
  let waiting: (() => void)[] = [];
  const wake = () => {
    const woken = waiting;
    waiting = [];
    for (const resolve of woken) resolve();
  };
  const handshakeSlot = async () => {
    while (handshaking >= options.maxHandshakes && !closed) {
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };

  const admit = async (conn: Deno.TlsConn) => {
    if (open >= options.maxConnections) {
      // No handshake has started on it, so closing frees it at once.
      options.onRefused("max-connections");
      conn.close();
      return;
    }
    open++;
    handshaking++;
    try {
      await conn.handshake();
    } catch {
      // Plain HTTP, a client that gave up or distrusts us: there is nothing to serve.
      handshaking--;
      wake();
      open--;
      options.onRefused("handshake");
      closeQuietly(conn);
      return;
    }
    handshaking--;
    wake();
    const stream = new ConnStream(conn);
    void stream.closed.then(() => open--);
    options.onSocket(stream);
    stream.start();
  };

  const serve = async (listener: Deno.TlsListener) => {
    for (;;) {
      await handshakeSlot();
      let conn: Deno.TlsConn;
      try {
        conn = await listener.accept();
      } catch (error) {
        // Closed for a new certificate or for good; anything else is worth a line.
        if (!(error instanceof Deno.errors.BadResource || error instanceof Deno.errors.Interrupted)) {
          logger.error("The webhook listener stopped accepting", { error });
        }
        return;
      }
      void admit(conn);
    }
  };

  let current = bind(options.port, options.certificates.current());
  const { hostname, port } = current.addr;
  void serve(current);

  let reloading = Promise.resolve();
  const unsubscribe = options.certificates.subscribe((material) => {
    reloading = reloading.then(async () => {
      try {
        await checkTlsMaterial(material, "the new webhook certificate");
      } catch (error) {
        logger.error("Ignoring an unusable webhook certificate; the previous one stays", {
          error: String(error),
        });
        return;
      }
      if (closed) return;
      // The address is free once the old listener's pending accept has been cancelled, one turn of the
      // event loop after close (about 3 ms): new connections are refused for that long.
      current.close();
      current = await rebind(() => bind(port, material), () => closed, logger);
      void serve(current);
      logger.info("Serving the new webhook certificate");
    }).catch((error) => logger.error("Cannot serve the new webhook certificate", { error }));
  });
  return {
    hostname,
    port,
    close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      closeQuietly(current);
      wake();
    },
  };
}

/** Closes what may have been closed already (by a failed handshake, or a swap that failed). */
function closeQuietly(resource: { close(): void }): void {
  try {
    resource.close();
  } catch (error) {
    if (!(error instanceof Deno.errors.BadResource)) throw error;
  }
}

/**
 * Binds as soon as the address is free: at once, or after the next turns of the event loop, then every
 * 100 ms (with a line saying so) if something else holds it. Throws once `stop()` holds.
 */
async function rebind(
  bind: () => Deno.TlsListener,
  stop: () => boolean,
  logger: Logger,
): Promise<Deno.TlsListener> {
  for (let attempt = 0;; attempt++) {
    try {
      return bind();
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse)) throw error;
      if (attempt === 20) {
        logger.error("The webhook address is still in use; retrying every 100 ms", { error });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, attempt < 20 ? 0 : 100));
    if (stop()) throw new Error("The webhook server stopped while listening again");
  }
}
