import * as nodeTls from "node:tls";

const fixtures = new URL("./fixtures/", import.meta.url);

/** Reads a test fixture (PEM) by file name. */
export function fixture(name: string): string {
  return Deno.readTextFileSync(new URL(name, fixtures));
}

/** A TLS server that requires a client certificate. */
export interface MtlsServer extends AsyncDisposable {
  readonly port: number;
}

/**
 * A TLS server presenting the localhost leaf (fixtures/ca.crt) that requires a client certificate
 * from fixtures/ca2.crt and answers every connection's first request with the client's CN, then
 * closes it. `Deno.listenTls` cannot ask for client certificates, so this uses node:tls.
 */
export async function mtlsServer(): Promise<MtlsServer> {
  const sockets = new Set<nodeTls.TLSSocket>();
  const server = nodeTls.createServer({
    cert: fixture("localhost.crt"),
    key: fixture("localhost.key"),
    ca: [fixture("ca2.crt")],
    requestCert: true,
    rejectUnauthorized: true,
    ALPNProtocols: ["http/1.1"],
  }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.once("data", () => {
      const cn = String(socket.getPeerCertificate().subject?.CN ?? "");
      socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${cn.length}\r\nConnection: close\r\n\r\n${cn}`);
    });
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
