/**
 * Connections over Deno's own TLS (rustls), and the one thing its public API does not give: the
 * certificate the server presented.
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
 * `serverName` (the host, or kubeconfig `tls-server-name`). `caCerts` are added to Deno's default
 * roots (they do not replace them). The handshake is complete when this resolves.
 */
export async function startTlsNoDelay(
  hostname: string,
  port: number,
  serverName: string,
  caCerts?: readonly string[],
): Promise<Deno.TlsConn> {
  const tcp = await Deno.connect({ hostname, port, transport: "tcp" });
  let conn: Deno.TlsConn;
  try {
    tcp.setNoDelay(true);
    conn = await Deno.startTls(tcp, {
      hostname: serverName,
      alpnProtocols: ["http/1.1"],
      ...(caCerts !== undefined && { caCerts: [...caCerts] }),
    });
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

type PeerCertificateMethod = (this: Deno.TlsConn, detailed: boolean) => { raw?: unknown } | null | undefined;

/**
 * The key under which Deno 2.9's `TlsConn` keeps its (unexported) peer-certificate method, found
 * through `Deno[Deno.internal]`; undefined when this Deno has no such thing.
 */
const PEER_CERTIFICATE: symbol | undefined = (() => {
  try {
    const deno = Deno as unknown as Record<PropertyKey, unknown>;
    const internal = deno["internal"];
    if (typeof internal !== "symbol") return undefined;
    const internals = deno[internal] as Record<string, unknown> | undefined;
    const key = internals?.["getPeerCertificate"];
    return typeof key === "symbol" ? key : undefined;
  } catch {
    return undefined;
  }
})();

/** Whether `peerLeaf` can read certificates from Deno's TLS connections in this runtime. */
export const canReadDenoPeerCertificate: boolean = PEER_CERTIFICATE !== undefined;

/**
 * The DER bytes of the certificate the server presented on `conn` (after the handshake): the
 * end-entity certificate only, never the rest of the chain. Undefined when Deno does not say.
 */
export function peerLeaf(conn: Deno.TlsConn): Uint8Array | undefined {
  if (PEER_CERTIFICATE === undefined) return undefined;
  try {
    const method = (conn as unknown as Record<symbol, unknown>)[PEER_CERTIFICATE];
    if (typeof method !== "function") return undefined;
    const raw = (method as PeerCertificateMethod).call(conn, false)?.raw;
    return raw instanceof Uint8Array && raw.byteLength > 0 ? raw : undefined;
  } catch {
    return undefined;
  }
}
