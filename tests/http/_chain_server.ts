import * as nodeTls from "node:tls";

const trust = new URL("./fixtures/trust/", import.meta.url);

/** Reads a file of fixtures/trust/ (see its README.md). */
export function trustFixture(name: string): string {
  return Deno.readTextFileSync(new URL(name, trust));
}

/** The path of a file of fixtures/trust/, for a subprocess's DENO_CERT or arguments. */
export function trustFixturePath(name: string): string {
  return new URL(name, trust).pathname;
}

/** A hostile or honest HTTPS server on 127.0.0.1. */
export interface ChainServer extends AsyncDisposable {
  readonly port: number;
  /** Connections that completed the handshake and sent a request. */
  readonly requests: number;
  /** Connections that completed the handshake and are still open. */
  readonly open: number;
}

/**
 * An HTTPS server presenting `chain` (fixture names, leaf first; every leaf uses leaf.key) and
 * answering each request "200 ok". `Deno.listenTls` refuses to serve X.509 v1 certificates, which
 * the attacks need, so this is node:tls (which Deno also implements, and which serves them).
 */
export function chainServer(chain: readonly string[]): Promise<ChainServer> {
  return pemChainServer(chain.map(trustFixture).join(""), trustFixture("leaf.key"));
}

/** The same server presenting `cert` (a PEM chain, leaf first) with `key` (PEM). */
export async function pemChainServer(cert: string, key: string): Promise<ChainServer> {
  const sockets = new Set<nodeTls.TLSSocket>();
  let requests = 0;
  const server = nodeTls.createServer({ cert, key, ALPNProtocols: ["http/1.1"] }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.on("data", () => {
      requests++;
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    get requests() {
      return requests;
    },
    get open() {
      return sockets.size;
    },
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
