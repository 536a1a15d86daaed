import { issueCertificate, type TlsMaterial } from "./issue_certificate.ts";

export { isCertificateHost, type TlsMaterial } from "./issue_certificate.ts";

/** Options of {@linkcode selfSignedCertificate}. */
export interface SelfSignedOptions {
  /** DNS names and IP addresses the certificate is valid for (subjectAltName); the first is also the CN. */
  hosts: readonly string[];
  /**
   * Validity from `now`.
   * @default {365 days}
   */
  validityMs?: number;
  /**
   * Start of validity; notBefore is set an hour earlier to absorb clock skew.
   * @default {new Date()}
   */
  now?: Date;
}

const DAY_MS = 86_400_000;

/**
 * A fresh ECDSA P-256 key and a self-signed X.509 v3 server certificate for `hosts` (see
 * `issueCertificate`): no CA (basicConstraints cA=false), keyUsage digitalSignature, extKeyUsage
 * serverAuth, subjectAltName with every host (IPv4/IPv6 literals as IP addresses, the rest as DNS names), a
 * random 128-bit serial. Clients can trust it by pinning this very certificate; it is what serves /metrics
 * when no certificate files are given, as in kubebuilder's scaffold.
 */
export async function selfSignedCertificate(options: SelfSignedOptions): Promise<TlsMaterial> {
  const hosts = options.hosts.filter((h) => h !== "");
  if (hosts.length === 0) throw new TypeError("A self-signed certificate needs at least one host");
  return await issueCertificate({
    commonName: hosts[0]!,
    ca: false,
    hosts,
    validityMs: options.validityMs ?? 365 * DAY_MS,
    now: options.now ?? new Date(),
  });
}
