/**
 * The webhook server's TLS listener, on `node:tls` (rustls underneath, as Deno's own TLS): it is the Deno
 * server whose certificate can be replaced in place (`setSecureContext`), so a rotated certificate serves the
 * next handshake with no listener restart and no refused connection, and whose accepted sockets are ours to
 * time out. (`Deno.serve` and `Deno.listenTls` fix the certificate per listener, and `Deno.serve` bounds no
 * phase of a request: in Deno 2.9.6 a client that never finished its TLS handshake or its headers was still
 * connected after 70 s.)
 * @module
 */
import * as nodeTls from "node:tls";
import type { Socket } from "node:net";
import { type CertificateSource, checkTlsMaterial } from "../observe/certificate_source.ts";
import type { TlsMaterial } from "../x509/self_signed.ts";
import type { Logger } from "../log/logger.ts";

/** Options of {@linkcode listenTls}. */
export interface TlsListenOptions {
  /** Interface to bind. */
  hostname: string;
  /** Port; 0 picks a free one. */
  port: number;
  /** The certificate, followed as it changes. */
  certificates: CertificateSource;
  /** A client that has not completed its handshake by then is disconnected. */
  handshakeTimeoutMs: number;
  /** Connections beyond this many are closed as soon as they are accepted. */
  maxConnections: number;
  /** Receives every socket that completed its handshake. */
  onSocket: (socket: nodeTls.TLSSocket) => void;
  /** Told about each connection refused before HTTP: "handshake" or "max-connections". */
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
  /** Stops accepting; sockets already accepted stay open. */
  close(): void;
}

/** Binds and listens; rejects when the address cannot be bound. */
export async function listenTls(options: TlsListenOptions): Promise<TlsListener> {
  const { logger } = options;
  const contextOf = (material: TlsMaterial) => ({ cert: material.cert, key: material.key });
  const server = nodeTls.createServer({
    ...contextOf(options.certificates.current()),
    ALPNProtocols: ["http/1.1"],
    handshakeTimeout: options.handshakeTimeoutMs,
  }, options.onSocket);
  let open = 0;
  server.on("connection", (socket: Socket) => {
    open++;
    socket.once("close", () => open--);
    if (open > options.maxConnections) {
      options.onRefused("max-connections");
      socket.destroy();
    }
  });
  // A failed handshake (plain HTTP, a client that gave up, the timeout) must close the socket: node:tls in
  // Deno 2.9.6 leaves it open otherwise.
  server.on("tlsClientError", (_error: Error, socket: nodeTls.TLSSocket) => {
    options.onRefused("handshake");
    socket.destroy();
  });
  let reloading = Promise.resolve();
  const unsubscribe = options.certificates.subscribe((material) => {
    reloading = reloading.then(async () => {
      try {
        await checkTlsMaterial(material, "the new webhook certificate");
        server.setSecureContext(contextOf(material));
        logger.info("Serving the new webhook certificate");
      } catch (error) {
        logger.error("Ignoring an unusable webhook certificate; the previous one stays", {
          error: String(error),
        });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  }).catch((error) => {
    unsubscribe();
    throw error;
  });
  server.on("error", (error: Error) => logger.error("The webhook listener failed", { error }));
  const address = server.address();
  if (address === null || typeof address === "string") {
    throw new Error("The webhook listener has no TCP address");
  }
  return {
    hostname: address.address,
    port: address.port,
    close() {
      unsubscribe();
      server.close();
    },
  };
}
