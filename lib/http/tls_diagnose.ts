import * as nodeTls from "node:tls";

// Deno's node:tls reports every failed chain check with this code, an expired certificate included.
const OPAQUE_VERIFY_CODE = "UNABLE_TO_VERIFY_LEAF_SIGNATURE";
const PROBE_TIMEOUT_MS = 5_000;

/** Where the failed handshake went, so the diagnostic one goes to the same place. */
export interface TlsTarget {
  readonly host: string;
  readonly port: number;
  readonly servername?: string;
}

/**
 * Deno's node:tls turns every certificate verification failure into UNABLE_TO_VERIFY_LEAF_SIGNATURE,
 * so an expired server certificate would read "signed by unknown authority" on the node path while
 * Deno's own TLS says "expired". After such a failure this opens one diagnostic handshake without
 * verification, only to read the leaf's validity dates; it sends nothing and closes at once. The
 * connection stays refused either way: only the error's wording changes.
 * @returns an error with node's CERT_HAS_EXPIRED / CERT_NOT_YET_VALID code (`err` as its cause),
 *   or `err` itself when the dates are fine or cannot be read.
 */
export async function refineVerifyFailure(err: Error, target: TlsTarget): Promise<Error> {
  if ((err as { code?: unknown }).code !== OPAQUE_VERIFY_CODE) return err;
  const validity = await leafValidity(target);
  if (validity === undefined) return err;
  const now = Date.now();
  if (now > validity.notAfter) return coded("certificate has expired", "CERT_HAS_EXPIRED", err);
  if (now < validity.notBefore) return coded("certificate is not yet valid", "CERT_NOT_YET_VALID", err);
  return err;
}

function coded(message: string, code: string, cause: Error): Error {
  return Object.assign(new Error(message, { cause }), { code });
}

function leafValidity(target: TlsTarget): Promise<{ notBefore: number; notAfter: number } | undefined> {
  return new Promise((resolve) => {
    const socket = nodeTls.connect({
      host: target.host,
      port: target.port,
      ...(target.servername !== undefined && { servername: target.servername }),
      // Diagnostics only: the peer certificate is read and the socket destroyed before any data.
      rejectUnauthorized: false,
      checkServerIdentity: () => undefined,
    });
    const finish = (value: { notBefore: number; notAfter: number } | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => finish(undefined), PROBE_TIMEOUT_MS);
    socket.once("error", () => finish(undefined));
    socket.once("secureConnect", () => {
      const cert = socket.getPeerCertificate();
      const notBefore = Date.parse(cert?.valid_from ?? "");
      const notAfter = Date.parse(cert?.valid_to ?? "");
      finish(Number.isNaN(notBefore) || Number.isNaN(notAfter) ? undefined : { notBefore, notAfter });
    });
  });
}
