/**
 * X.509 certificates written here, not trusted from a TLS library: a DER reader and writer, certificate
 * parsing, signature checks, the server-chain path check our HTTP client applies to every TLS connection,
 * private-key import, and certificates for the servers we run: self-signed, or a CA and the server
 * certificates it signs.
 * @module
 */
export { isCertificateHost, selfSignedCertificate, type SelfSignedOptions } from "./self_signed.ts";
export { issueCertificate, type IssueOptions, type TlsMaterial } from "./issue_certificate.ts";
