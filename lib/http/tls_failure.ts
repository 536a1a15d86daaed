import { ServerCertificateError } from "../x509/server_certificate.ts";

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
export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? `${err.message} [${code}]` : err.message;
}

/** The message without rustls' "invalid peer certificate: " prefix, for display. */
function shownText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/^invalid peer certificate: /, "");
}
