import { hostnameOr } from "../_internal/hostname.ts";
import { KubeScrapeAuthorizer, type ReviewClient } from "../auth/mod.ts";
import {
  certificateFiles,
  type CertificateSource,
  generatedCertificate,
  type ScrapeAuthorizer,
} from "../observe/mod.ts";
import { isCertificateHost } from "../x509/self_signed.ts";
import { type Logger } from "../log/logger.ts";
import type { ControllerFlags } from "./controller_flags.ts";

/** What the Manager needs to serve metrics securely; empty when metrics are plain HTTP or off. */
export interface MetricsSecurity {
  /** The serving certificate. */
  metricsTls?: CertificateSource;
  /** TokenReview + SubjectAccessReview of every scrape. */
  metricsAuthorizer?: ScrapeAuthorizer;
}

/**
 * The secure metrics setup of `--metrics-secure` (the default), like kubebuilder's scaffold: HTTPS with the
 * certificate in `--metrics-cert-path` (re-read as it changes) or a generated self-signed one, and every scrape
 * authenticated and authorized through `client` (which needs `create` on tokenreviews and
 * subjectaccessreviews). `signal` stops the certificate watcher. Throws `CertificateError` naming the file when
 * the certificate files cannot be used.
 */
export async function metricsSecurity(
  flags: Pick<
    ControllerFlags,
    "metricsSecure" | "metricsBindAddress" | "metricsCertPath" | "metricsCertName" | "metricsCertKey"
  >,
  client: ReviewClient,
  options: { signal: AbortSignal; logger: Logger },
): Promise<MetricsSecurity> {
  if (!flags.metricsSecure || flags.metricsBindAddress === "0") return {};
  const logger = options.logger.child({ component: "metrics" });
  const dir = flags.metricsCertPath?.replace(/\/+$/, "");
  const metricsTls = dir === undefined
    ? await generatedCertificate({
      // The pod name (hostname) and loopback, for port-forwards; scrapers through the Service either skip
      // verification or are given a certificate with --metrics-cert-path.
      // A hostname that is no DNS name (e.g. with an underscore) is left out rather than failing the start.
      hosts: [hostnameOr("localhost"), "localhost", "127.0.0.1", "::1"].filter(isCertificateHost),
      signal: options.signal,
      logger,
    })
    : await certificateFiles({
      certFile: `${dir}/${flags.metricsCertName}`,
      keyFile: `${dir}/${flags.metricsCertKey}`,
      signal: options.signal,
      logger,
    });
  logger.info("Metrics are served over HTTPS to authorized scrapers", {
    certificate: dir === undefined ? "generated, self-signed" : `${dir}/${flags.metricsCertName}`,
  });
  return { metricsTls, metricsAuthorizer: new KubeScrapeAuthorizer(client, { logger }) };
}
