/**
 * Connections over `node:tls`, for a configured CA that must replace the default roots: node:tls
 * reports the whole chain the server presented, so kubeloop's own check can decide on it.
 * @module
 */
import * as nodeTls from "node:tls";
import type { TlsOptions } from "./types.ts";
import type { ByteSocket } from "./connection.ts";
import { NodeTlsSocket } from "./node_tls_socket.ts";
import { isIpAddress } from "../_internal/ip_address.ts";
import { ServerCertificateError, type ServerCertificateVerifier } from "../x509/server_certificate.ts";

/**
 * Connects with node:tls and, unless `verifier` is undefined (insecureSkipVerify: no verification
 * at all), refuses the connection before any byte is written unless both our check of the
 * presented chain and node:tls's own verdict accept it.
 */
export function connectNodeTls(
  hostname: string,
  port: number,
  tls: TlsOptions,
  verifier: ServerCertificateVerifier | undefined,
): Promise<ByteSocket> {
  const verifyName = tls.serverName ?? hostname;
  const socket = nodeTls.connect({
    host: hostname,
    port,
    // node:tls refuses an IP address as SNI; the name check still covers IP SANs.
    ...(!isIpAddress(verifyName) && { servername: verifyName }),
    ALPNProtocols: ["http/1.1"],
    // The verdict is taken below, after the handshake and before any byte is written, so that a
    // refusal says exactly why (node:tls reports most failures as one opaque code).
    rejectUnauthorized: false,
    checkServerIdentity: () => undefined,
    ...(verifier !== undefined && { ca: [...tls.caCerts!] }),
    ...(tls.cert !== undefined && { cert: tls.cert }),
    ...(tls.key !== undefined && { key: tls.key }),
  });
  const adapter = new NodeTlsSocket(socket);
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.once("error", onError);
    socket.once("secureConnect", async () => {
      // onError stays on until the verdict: a socket error during the check settles the promise.
      const refusal = verifier === undefined
        ? undefined
        : await checkPeer(socket, verifier, verifyName).catch((err: Error) => err);
      socket.off("error", onError);
      if (refusal === undefined) {
        resolve(adapter);
      } else {
        adapter.close();
        reject(refusal);
      }
    });
  });
}

/** Our verdict on the peer's chain first (it says why), then node:tls's, which must agree. */
async function checkPeer(
  socket: nodeTls.TLSSocket,
  verifier: ServerCertificateVerifier,
  name: string,
): Promise<Error | undefined> {
  let leaf: Uint8Array;
  try {
    leaf = rawOf(socket.getPeerCertificate(false));
  } catch (err) {
    return new ServerCertificateError(`cannot read the server's certificate: ${(err as Error).message}`);
  }
  try {
    await verifier.verify(leaf, () => presentedChain(socket), name, Date.now());
  } catch (err) {
    return err as Error;
  }
  if (!socket.authorized) {
    const reason = socket.authorizationError;
    const code = typeof reason === "string" ? reason : String(reason?.message ?? reason);
    return Object.assign(new Error(`certificate verification failed (${code})`), { code });
  }
  return undefined;
}

const MAX_CHAIN = 16;

/**
 * The DER certificates node:tls reports, leaf first, following `issuerCertificate` (the ones the
 * server sent, then configured CAs node:tls matched *by name*: all are treated as untrusted
 * candidates). Stops at a self-reference or a repeat; a longer walk than MAX_CHAIN is refused.
 * @throws {ServerCertificateError} when the chain cannot be read.
 */
function presentedChain(socket: nodeTls.TLSSocket): Uint8Array[] {
  try {
    const out: Uint8Array[] = [];
    const seen = new Set<unknown>();
    let cert: nodeTls.DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
    while (cert !== undefined && cert !== null && !seen.has(cert) && cert.raw !== undefined) {
      if (out.length === MAX_CHAIN) throw new Error(`more than ${MAX_CHAIN} certificates`);
      seen.add(cert);
      out.push(rawOf(cert));
      cert = cert.issuerCertificate;
    }
    return out;
  } catch (err) {
    throw new ServerCertificateError(`cannot read the server's certificates: ${(err as Error).message}`);
  }
}

/** The DER bytes of a certificate node:tls reports. */
function rawOf(cert: nodeTls.PeerCertificate | undefined | null): Uint8Array {
  const raw = cert?.raw;
  if (raw === undefined || raw.byteLength === 0) throw new Error("the server presented no certificate");
  return new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
}
