/**
 * The reference controller's webhook server, from its flags: certificate files (mounted from cert-manager
 * or a Secret, followed as they change), self-managed certificates in a Secret (`--webhook-cert-secret`), or
 * for a development control plane (`--webhook-url`) a generated certificate and the webhook configurations
 * registered by the controller itself.
 * @module
 */
import { certificateFiles, type CertificateSource, generatedCertificate } from "../observe/mod.ts";
import { isCertificateHost } from "../x509/self_signed.ts";
import { serveWebhooks, webhookMetricsFor } from "../webhook/mod.ts";
import { fooConversion, fooDefaulting, fooValidation } from "./foo_webhooks.ts";
import { registerAt, unregister } from "./webhook_registration.ts";
import { serveSelfManaged } from "./self_managed_webhooks.ts";

import type { FooWebhookOptions, FooWebhooks, WebhookFlags } from "./webhook_options.ts";

export { fooWebhookConfigurations, WEBHOOK_CONFIGURATION_NAME } from "./webhook_registration.ts";
export type { FooWebhookOptions, FooWebhooks, WebhookFlags } from "./webhook_options.ts";

/**
 * Serves the Foo webhooks when `--webhook-bind-address` is set, until `signal` aborts; resolves once
 * listening (and, with `--webhook-url`, registered); without the flag, at once, with nothing served. With
 * `--webhook-cert-secret` it resolves at once and starts in the background (a Secret that only the leader
 * can repair must not keep the controller from campaigning): failures go to `onFailure`.
 * Throws `CertificateError` for unusable certificate files and `ApiError` when the registration is refused.
 */
export async function serveFooWebhooks(
  flags: WebhookFlags,
  options: FooWebhookOptions,
): Promise<FooWebhooks> {
  if (flags.webhookBindAddress === "0") return { finished: Promise.resolve() };
  const { signal } = options;
  const logger = options.logger.child({ component: "webhook" });
  if (flags.webhookCertSecret !== undefined) {
    return serveSelfManaged({ ...flags, webhookCertSecret: flags.webhookCertSecret }, { ...options, logger });
  }
  const dir = flags.webhookCertPath?.replace(/\/+$/, "");
  const certificates: CertificateSource = dir === undefined
    ? await generatedCertificate({
      hosts: [new URL(flags.webhookUrl!).hostname.replace(/^\[|\]$/g, ""), "localhost", "127.0.0.1", "::1"]
        .filter(isCertificateHost),
      signal,
      logger,
    })
    : await certificateFiles({
      certFile: `${dir}/${flags.webhookCertName}`,
      keyFile: `${dir}/${flags.webhookCertKey}`,
      signal,
      logger,
    });
  const server = serveWebhooks({
    address: flags.webhookBindAddress,
    certificates,
    webhooks: [fooDefaulting, fooValidation],
    conversions: [fooConversion],
    signal,
    logger,
    metrics: webhookMetricsFor(options.registry),
  });
  if (flags.webhookUrl === undefined) return { finished: server.finished };
  const url = flags.webhookUrl;
  const caBundle = async () =>
    dir === undefined ? certificates.current().cert : await caOf(dir, flags.webhookCertName);
  const register = async () => {
    await registerAt(options.client, url, await caBundle(), options.namespace, logger);
  };
  await register();
  // A renewed generated certificate (or rewritten files) needs the new CA in the configurations.
  const unsubscribe = certificates.subscribe(() => {
    register().catch((error) =>
      logger.error("Cannot register the webhooks with the new certificate", { error })
    );
  });
  const removed = new Promise<void>((resolve) => {
    const remove = async () => {
      unsubscribe();
      await unregister(options.client, logger);
      resolve();
    };
    if (signal.aborted) void remove();
    else signal.addEventListener("abort", () => void remove(), { once: true });
  });
  return { finished: Promise.all([server.finished, removed]).then(() => {}) };
}

/** The CA beside a mounted certificate (`ca.crt`, as cert-manager writes it), else the chain itself. */
async function caOf(dir: string, certName: string): Promise<string> {
  try {
    return await Deno.readTextFile(`${dir}/ca.crt`);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return await Deno.readTextFile(`${dir}/${certName}`);
  }
}
