/**
 * The `/metrics`, `/healthz`, `/readyz` server: metrics over HTTPS (certificate files followed as they
 * change, or a generated self-signed certificate) with an injected scrape authorizer. The logger lives in
 * lib/log, the metrics registry in lib/metrics.
 * @module
 */
export { type Check, type CheckFailure, type CheckResult } from "./probe.ts";
export {
  type ListenAddress,
  type ObservabilityOptions,
  type ObservabilityServer,
  parseListenAddress,
  serveObservability,
} from "./server.ts";
export {
  CertificateError,
  type CertificateSource,
  checkTlsMaterial,
  generatedCertificate,
  type GeneratedCertificateOptions,
  staticCertificate,
} from "./certificate_source.ts";
export { certificateFiles, type CertificateFilesOptions } from "./certificate_files.ts";
export type { ScrapeAuthorizer, ScrapeDecision, ScrapeRequest } from "./scrape_auth.ts";
export { bearerToken } from "./metrics_auth.ts";
