import type { TlsOptions } from "./types.ts";
import type { ByteSocket } from "./connection.ts";
import { errorText } from "./tls_failure.ts";
import {
  canReadDenoPeerCertificate,
  connectTlsWithCert,
  peerLeaf,
  startTlsNoDelay,
} from "./deno_tls_connect.ts";
import {
  parseTrustAnchors,
  ServerCertificateError,
  ServerCertificateVerifier,
} from "../x509/server_certificate.ts";
import { type Logger, noopLogger } from "../log/logger.ts";

// node:tls pulls in Deno's Node compatibility layer (several MB of memory), which most connections
// with a configured CA never need: it is loaded on first use. A string literal, so that
// `deno compile` bundles the module.
let nodeTlsConnect: Promise<typeof import("./node_tls_connect.ts")> | undefined;

/** `connectNodeTls` of node_tls_connect.ts, loaded the first time a connection needs node:tls. */
async function connectNodeTls(
  ...args: Parameters<typeof import("./node_tls_connect.ts").connectNodeTls>
): Promise<ByteSocket> {
  nodeTlsConnect ??= import("./node_tls_connect.ts");
  return await (await nodeTlsConnect).connectNodeTls(...args);
}

/** Settings of a TlsConnector beyond the TlsOptions. */
export interface TlsConnectorOptions {
  /**
   * Receives the one line saying that connections with a configured CA moved to node:tls for good.
   * @default {noopLogger}
   */
  readonly logger?: Logger;
  /**
   * Whether connections with a configured CA may use Deno's own TLS (false: always node:tls, the
   * path before Deno's was used; for benches and tests that compare the two).
   * @default {true}
   */
  readonly denoTls?: boolean;
}

/**
 * Opens TLS sockets for one set of TlsOptions (parsed once: a bad CA certificate fails here, not
 * on the first connection). Which roots are trusted decides the path:
 * - `caCerts` set: only those CAs are trusted, as in client-go and kubectl. The decision is ours:
 *   `ServerCertificateVerifier` checks what the server presented against the configured CAs only
 *   (signatures, validity, CA constraints, v3 leaf, names), after the handshake and before a byte
 *   is sent, and the TLS library's own verdict must agree as well. Two TLS stacks carry it:
 *   - without a client certificate, first Deno's rustls (`Deno.startTls` with TCP_NODELAY), which
 *     verifies the chain, the name and that the server holds the leaf's key against the default
 *     roots *plus* the CAs (it cannot replace the roots). It reports only the leaf, so the
 *     connection is kept only when our check trusts that leaf on its own: issued directly by a
 *     configured CA, or remembered from an earlier check of its whole chain. Its sockets free
 *     their memory when they close;
 *   - otherwise `node:tls` (Deno implements it on rustls too), which reports the whole chain: for
 *     a chain through intermediates the first time it is seen, for every refusal (so that the
 *     error says why), for a Deno whose connections do not report the server's certificate, and
 *     for client certificates (the one Deno API that presents one, `Deno.connectTls`, leaves
 *     Nagle's algorithm on: 44 ms per connection against kube-apiserver, see `startTlsNoDelay`).
 *     Its own verdict is not enough on its own: it accepts an X.509 v1 chain when the issuer
 *     *names* match, signatures unchecked. Each of its connections leaves about 10 KiB of native
 *     memory behind until V8's next major garbage collection (Deno 2.9.6), which is why it comes
 *     second.
 *   When rustls refuses a certificate that node:tls and our check then accept (a CA certificate
 *   that is also the server's, configured as the CA), the connector stays on node:tls from then on.
 * - `insecureSkipVerify`: `node:tls` without any check (only ever from explicit configuration);
 * - otherwise (system roots): Deno's rustls, which replaces nothing and verifies everything, with a
 *   client certificate via `Deno.connectTls`, without one via `Deno.startTls` on a TCP socket with
 *   TCP_NODELAY (see `startTlsNoDelay`), which also verifies a `serverName` different from the
 *   host. A client certificate with such a `serverName` and no `caCerts` is refused: no path can
 *   check it against the system roots.
 * All paths offer ALPN `http/1.1`.
 */
export class TlsConnector {
  readonly #tls: TlsOptions;
  readonly #verifier: ServerCertificateVerifier | undefined;
  readonly #logger: Logger;
  #denoTls: boolean;

  /**
   * @throws {TypeError} when `tls.caCerts` holds something other than PEM certificates.
   */
  constructor(tls: TlsOptions, options: TlsConnectorOptions = {}) {
    this.#tls = tls;
    const caCerts = tls.caCerts ?? [];
    this.#verifier = caCerts.length > 0 && tls.insecureSkipVerify !== true
      ? new ServerCertificateVerifier(parseTrustAnchors(caCerts))
      : undefined;
    this.#logger = options.logger ?? noopLogger;
    this.#denoTls = options.denoTls !== false && canReadDenoPeerCertificate;
  }

  /** Connects to `hostname:port` and completes the handshake and the certificate checks. */
  async connect(hostname: string, port: number): Promise<ByteSocket> {
    const tls = this.#tls;
    const serverName = tls.serverName ?? hostname;
    if (tls.insecureSkipVerify === true) return await connectNodeTls(hostname, port, tls, undefined);
    if (this.#verifier !== undefined) return await this.#connectVerified(hostname, port, this.#verifier);
    const withCert = tls.cert !== undefined && tls.key !== undefined;
    if (withCert && serverName !== hostname) {
      throw new ServerCertificateError(
        `cannot verify the server as "${serverName}" against the system roots with a client certificate; ` +
          "configure the CA certificate (caCerts)",
      );
    }
    return withCert
      ? await connectTlsWithCert(hostname, port, tls.cert!, tls.key!)
      : await startTlsNoDelay(hostname, port, serverName);
  }

  /** With a configured CA: Deno's TLS when our check can decide on its leaf, else node:tls. */
  async #connectVerified(
    hostname: string,
    port: number,
    verifier: ServerCertificateVerifier,
  ): Promise<ByteSocket> {
    const tls = this.#tls;
    const name = tls.serverName ?? hostname;
    const withCert = tls.cert !== undefined;
    let refusal: Error | undefined;
    if (this.#denoTls && !withCert) {
      let conn: Deno.TlsConn | undefined;
      try {
        conn = await startTlsNoDelay(hostname, port, name, tls.caCerts);
      } catch (err) {
        // Not reaching the server, or its alert, is the same answer on any path. When rustls
        // refuses the server's certificate (or cannot even start), node:tls and our check decide
        // instead, and say why.
        if (isDenoIoError(err) && !PEER_CERTIFICATE_REFUSED.test(errorText(err))) throw err;
        refusal = err as Error;
      }
      if (conn !== undefined) {
        const leaf = peerLeaf(conn);
        if (leaf !== undefined && await verifier.trustsLeaf(leaf, name, Date.now())) return conn;
        conn.close();
        // A Deno that does not say which certificate its connection got cannot be used here.
        if (leaf === undefined) this.#denoTls = false;
      }
    }
    const socket = await connectNodeTls(hostname, port, tls, verifier);
    if (refusal !== undefined && PEER_CERTIFICATE_REFUSED.test(errorText(refusal))) {
      // rustls and our check disagree about this server for good: stop paying two handshakes.
      this.#denoTls = false;
      this.#logger.info(
        "Deno's TLS refuses the server's certificate, which the configured CA and node:tls accept; " +
          "using node:tls for this client from now on (each connection then keeps some memory until " +
          "the next major garbage collection)",
        { reason: refusal.message },
      );
    }
    return socket;
  }
}

// How rustls words a refusal of the server's certificate.
const PEER_CERTIFICATE_REFUSED = /invalid peer certificate/i;

/** An error of one of Deno's I/O classes (connection refused, reset, timed out, …). */
function isDenoIoError(err: unknown): boolean {
  return Object.values(Deno.errors).some((kind) => err instanceof kind);
}
