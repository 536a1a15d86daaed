/**
 * The reference controller's webhooks with self-managed certificates (`--webhook-cert-secret`): the
 * Secret, the Service names, the two configurations and the Foo CRD as caBundle targets.
 * @module
 */
import { serveWebhooks, webhookMetricsFor } from "../webhook/mod.ts";
import { selfManagedCertificates } from "../webhook_certs/mod.ts";
import { fooConversion, fooDefaulting, fooValidation } from "./foo_webhooks.ts";
import { registerAt, unregister, WEBHOOK_CONFIGURATION_NAME } from "./webhook_registration.ts";
import type { FooWebhookOptions, FooWebhooks, WebhookFlags } from "./webhook_options.ts";

/** The certificate's names: the Service's, and the `--webhook-url` host in development. */
export function selfManagedHosts(
  flags: Pick<WebhookFlags, "webhookService" | "webhookUrl">,
  namespace: string,
): string[] {
  const service = `${flags.webhookService}.${namespace}.svc`;
  const hosts = [service, `${service}.cluster.local`];
  if (flags.webhookUrl !== undefined) hosts.push(new URL(flags.webhookUrl).hostname.replace(/^\[|\]$/g, ""));
  return hosts;
}

/**
 * Starts in the background (see `serveFooWebhooks`): the certificates, then the server, then with
 * `--webhook-url` the registration (without caBundle: the leader writes it, at once after the
 * registration). Resolves at once.
 */
export function serveSelfManaged(
  flags: WebhookFlags & { webhookCertSecret: string },
  options: FooWebhookOptions,
): FooWebhooks {
  const { signal, logger, client } = options;
  let registered = false;
  const start = async () => {
    const certificates = await selfManagedCertificates({
      client,
      namespace: options.secretNamespace,
      secretName: flags.webhookCertSecret,
      hosts: selfManagedHosts(flags, options.secretNamespace),
      targets: {
        validating: [WEBHOOK_CONFIGURATION_NAME],
        mutating: [WEBHOOK_CONFIGURATION_NAME],
        crds: [fooConversion.crd],
      },
      ...(options.fence ? { fence: options.fence } : {}),
      labels: {
        "app.kubernetes.io/name": "kubeloop-sample-controller",
        "app.kubernetes.io/part-of": "kubeloop",
      },
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
    if (flags.webhookUrl !== undefined && !signal.aborted) {
      await registerAt(client, flags.webhookUrl, undefined, options.namespace, logger);
      registered = true;
      certificates.recheck();
    }
    await Promise.all([server.finished, certificates.finished]);
  };
  const finished = start().catch((error) => {
    if (signal.aborted) return; // stopped before it was up
    logger.error("The webhooks cannot be served", { error });
    options.onFailure?.(error);
  }).then(async () => {
    if (registered) await unregister(client, logger);
  });
  return { finished };
}
