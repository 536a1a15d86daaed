/**
 * X.509 certificates written here, not trusted from a TLS library: a DER reader and writer, certificate
 * parsing, signature checks, the server-chain path check our HTTP client applies to every TLS connection,
 * private-key import and self-signed certificate generation for the servers we run.
 * @module
 */
export {
  isCertificateHost,
  selfSignedCertificate,
  type SelfSignedOptions,
  type TlsMaterial,
} from "./self_signed.ts";
