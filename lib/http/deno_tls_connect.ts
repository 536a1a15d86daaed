/**
 * Connections over Deno's own TLS (rustls).
 * @module
 */

/**
 * `Deno.connectTls` leaves Nagle's algorithm on. Go servers (kube-apiserver) answer the first
 * ClientHello with a HelloRetryRequest (they prefer the X25519MLKEM768 key share), rustls then
 * writes a 6-byte ChangeCipherSpec and the second ClientHello separately, and Nagle holds the
 * second until the server's delayed ACK of the first: measured 44 ms per connection against
 * kube-apiserver, 1 ms with TCP_NODELAY. Every watch opens a new connection, so this is paid on
 * each (re)start. `Deno.startTls` cannot present a client certificate, so only connections
 * without one take this path; verification is the same rustls with the same options, against
 * `serverName` (the host, or kubeconfig `tls-server-name`). The handshake is complete when this
 * resolves.
 */
export async function startTlsNoDelay(
  hostname: string,
  port: number,
  serverName: string,
): Promise<Deno.TlsConn> {
  const tcp = await Deno.connect({ hostname, port, transport: "tcp" });
  let conn: Deno.TlsConn;
  try {
    tcp.setNoDelay(true);
    conn = await Deno.startTls(tcp, { hostname: serverName, alpnProtocols: ["http/1.1"] });
  } catch (err) {
    try {
      tcp.close();
    } catch {
      // startTls already took the socket over.
    }
    throw err;
  }
  return await handshaken(conn);
}

/**
 * `Deno.connectTls` with a client certificate (Nagle stays on, see `startTlsNoDelay`), verified by
 * rustls against `hostname` and the default roots. The handshake is complete when this resolves.
 */
export async function connectTlsWithCert(
  hostname: string,
  port: number,
  cert: string,
  key: string,
): Promise<Deno.TlsConn> {
  return await handshaken(
    await Deno.connectTls({ hostname, port, alpnProtocols: ["http/1.1"], cert, key }),
  );
}

async function handshaken(conn: Deno.TlsConn): Promise<Deno.TlsConn> {
  try {
    await conn.handshake();
  } catch (err) {
    conn.close();
    throw err;
  }
  return conn;
}
