import * as nodeTls from "node:tls";
import { isIP } from "node:net";
import type { TlsOptions } from "./types.ts";
import type { ByteSocket } from "./connection.ts";
import { NodeTlsSocket } from "./node_tls_socket.ts";
import { refineVerifyFailure, type TlsTarget } from "./tls_diagnose.ts";

/**
 * Opens a TLS socket and completes the handshake.
 *
 * Which roots are trusted decides the path:
 * - `caCerts` set: only those CAs are trusted, as in client-go and kubectl. `Deno.connectTls` and
 *   `Deno.startTls` would add them to the default roots (so any publicly trusted certificate for
 *   the server's name would pass), while `node:tls`'s `ca` replaces the roots, so these connections
 *   go through `node:tls` (which works inside Deno);
 * - `serverName` different from the URL host (kubeconfig `tls-server-name`), or
 *   `insecureSkipVerify`: also `node:tls`, since Deno's TLS verifies against the connect host only
 *   and cannot skip verification;
 * - otherwise (system roots): `Deno.connectTls` with a client certificate, else `Deno.startTls`
 *   over a TCP socket with TCP_NODELAY (see `startTlsNoDelay`).
 * All paths offer ALPN `http/1.1`.
 */
export async function connectTlsSocket(hostname: string, port: number, tls: TlsOptions): Promise<ByteSocket> {
  if (needsNodeTls(hostname, tls)) return await connectNodeTls(hostname, port, tls);
  const conn = tls.cert !== undefined && tls.key !== undefined
    ? await Deno.connectTls({ hostname, port, alpnProtocols: ["http/1.1"], cert: tls.cert, key: tls.key })
    : await startTlsNoDelay(hostname, port);
  try {
    await conn.handshake();
  } catch (err) {
    conn.close();
    throw err;
  }
  return conn;
}

/** True when `tls` asks for something only the `node:tls` path does (see `connectTlsSocket`). */
function needsNodeTls(hostname: string, tls: TlsOptions): boolean {
  return hasCaCerts(tls) || tls.insecureSkipVerify === true ||
    (tls.serverName !== undefined && tls.serverName !== hostname);
}

function hasCaCerts(tls: TlsOptions): tls is TlsOptions & { caCerts: readonly string[] } {
  return tls.caCerts !== undefined && tls.caCerts.length > 0;
}

/**
 * `Deno.connectTls` leaves Nagle's algorithm on. Go servers (kube-apiserver) answer the first
 * ClientHello with a HelloRetryRequest (they prefer the X25519MLKEM768 key share), rustls then
 * writes a 6-byte ChangeCipherSpec and the second ClientHello separately, and Nagle holds the
 * second until the server's delayed ACK of the first: measured 44 ms per connection against
 * kube-apiserver, 1 ms with TCP_NODELAY. Every watch opens a new connection, so this is paid on
 * each (re)start. `Deno.startTls` cannot present a client certificate, so only connections
 * without one take this path; verification is the same rustls with the same options.
 */
async function startTlsNoDelay(hostname: string, port: number): Promise<Deno.TlsConn> {
  const tcp = await Deno.connect({ hostname, port, transport: "tcp" });
  try {
    tcp.setNoDelay(true);
    return await Deno.startTls(tcp, { hostname, alpnProtocols: ["http/1.1"] });
  } catch (err) {
    try {
      tcp.close();
    } catch {
      // startTls already took the socket over.
    }
    throw err;
  }
}

function connectNodeTls(hostname: string, port: number, tls: TlsOptions): Promise<ByteSocket> {
  const verifyName = tls.serverName ?? hostname;
  // node:tls refuses an IP address as SNI; the name check below still covers IP SANs.
  const target: TlsTarget = {
    host: hostname,
    port,
    ...(isIP(verifyName) === 0 && { servername: verifyName }),
  };
  const socket = nodeTls.connect({
    ...target,
    ALPNProtocols: ["http/1.1"],
    rejectUnauthorized: tls.insecureSkipVerify !== true,
    checkServerIdentity: (_host, cert) => nodeTls.checkServerIdentity(verifyName, cert),
    ...(hasCaCerts(tls) && { ca: [...tls.caCerts] }),
    ...(tls.cert !== undefined && { cert: tls.cert }),
    ...(tls.key !== undefined && { key: tls.key }),
  });
  const adapter = new NodeTlsSocket(socket);
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      socket.destroy();
      refineVerifyFailure(err, target).then(reject);
    };
    socket.once("error", onError);
    socket.once("secureConnect", () => {
      socket.off("error", onError);
      resolve(adapter);
    });
  });
}

// Deno (rustls) messages and node:tls error codes that mean the TLS layer refused the exchange.
const TLS_PATTERN =
  /invalid peer certificate|fatal alert|handshake|certificate|UNABLE_TO_|SELF_SIGNED|CERT_|ERR_TLS_|ERR_SSL_/i;

/** True when `err` came from TLS (certificate checks or an alert), not from the TCP layer. */
export function isTlsFailure(err: unknown): boolean {
  return TLS_PATTERN.test(errorText(err));
}

/**
 * Turns a TLS failure from Deno or node:tls into a short sentence a user can act on. Matching
 * looks at node's error code too, but only the message is shown, so both paths read the same.
 */
export function describeTlsFailure(err: unknown): string {
  const text = errorText(err);
  const shown = shownText(err);
  if (/UnknownIssuer|UNABLE_TO_VERIFY_LEAF|UNABLE_TO_GET_ISSUER|SELF_SIGNED|unable to verify/i.test(text)) {
    return "certificate signed by unknown authority";
  }
  if (/CertificateRequired|certificate required/i.test(text)) return "server requires a client certificate";
  if (/Expired|CERT_HAS_EXPIRED/i.test(text)) return "server certificate has expired";
  if (/NotValidYet|CERT_NOT_YET_VALID/i.test(text)) return "server certificate is not valid yet";
  if (/not valid for name|ERR_TLS_CERT_ALTNAME_INVALID|does not match certificate/i.test(text)) {
    return `server certificate is not valid for the name: ${shown}`;
  }
  if (/alert: (BadCertificate|UnknownCA|CertificateUnknown|DecryptError)|alert bad certificate/i.test(text)) {
    return `server rejected the client certificate (${shown})`;
  }
  return `TLS handshake failed: ${shown}`;
}

/** The message plus node's `code`, for matching. */
function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? `${err.message} [${code}]` : err.message;
}

/** The message without rustls' "invalid peer certificate: " prefix, for display. */
function shownText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/^invalid peer certificate: /, "");
}
