import type { TlsOptions } from "./types.ts";
import type { ByteSocket } from "./connection.ts";
import { connectTlsWithCert, startTlsNoDelay } from "./deno_tls_connect.ts";
import { connectNodeTls } from "./node_tls_connect.ts";
import {
  parseTrustAnchors,
  ServerCertificateError,
  ServerCertificateVerifier,
} from "./server_certificate.ts";

/**
 * Opens TLS sockets for one set of TlsOptions (parsed once: a bad CA certificate fails here, not
 * on the first connection). Which roots are trusted decides the path:
 * - `caCerts` set: only those CAs are trusted, as in client-go and kubectl. Deno's own TLS would
 *   add them to the default roots (so any publicly trusted certificate for the server's name would
 *   pass), so these connections use `node:tls`, which Deno implements on rustls with a fallback
 *   for certificates rustls cannot read: it accepts an X.509 v1 chain when the issuer *names*
 *   match, signatures unchecked. The trust decision therefore does not rest on it: after the
 *   handshake, before a byte is sent, `verifyServerCertificate` checks the presented chain against
 *   the configured CAs itself (signatures, validity, CA constraints, v3 leaf, names), and
 *   node:tls's own verdict must agree as well;
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

  /**
   * @throws {TypeError} when `tls.caCerts` holds something other than PEM certificates.
   */
  constructor(tls: TlsOptions) {
    this.#tls = tls;
    const caCerts = tls.caCerts ?? [];
    this.#verifier = caCerts.length > 0 && tls.insecureSkipVerify !== true
      ? new ServerCertificateVerifier(parseTrustAnchors(caCerts))
      : undefined;
  }

  /** Connects to `hostname:port` and completes the handshake and the certificate checks. */
  async connect(hostname: string, port: number): Promise<ByteSocket> {
    const tls = this.#tls;
    const serverName = tls.serverName ?? hostname;
    if (tls.insecureSkipVerify === true) return await connectNodeTls(hostname, port, tls, undefined);
    if (this.#verifier !== undefined) return await connectNodeTls(hostname, port, tls, this.#verifier);
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
}

// Deno (rustls) messages and node:tls error codes that mean the TLS layer refused the exchange.
const TLS_PATTERN =
  /invalid peer certificate|fatal alert|handshake|certificate|UNABLE_TO_|SELF_SIGNED|CERT_|ERR_TLS_|ERR_SSL_/i;

/** True when `err` came from TLS (certificate checks or an alert), not from the TCP layer. */
export function isTlsFailure(err: unknown): boolean {
  return err instanceof ServerCertificateError || TLS_PATTERN.test(errorText(err));
}

/**
 * Turns a TLS failure from Deno, node:tls or our own certificate check into a short sentence a
 * user can act on. Matching looks at node's error code too, but only the message is shown, so all
 * paths read the same.
 */
export function describeTlsFailure(err: unknown): string {
  if (err instanceof ServerCertificateError) return err.message;
  const text = errorText(err);
  const shown = shownText(err);
  if (/UnknownIssuer|UNABLE_TO_VERIFY_LEAF|UNABLE_TO_GET_ISSUER|SELF_SIGNED|unable to verify/i.test(text)) {
    return "certificate signed by unknown authority";
  }
  if (/BadSignature|InvalidSignatureForPublicKey/.test(text)) {
    return "certificate signed by unknown authority (a signature in the chain does not verify)";
  }
  if (/UnsupportedCertVersion/.test(text)) {
    return "a certificate in the server's chain is not X.509 v3; only v3 certificates are accepted";
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
