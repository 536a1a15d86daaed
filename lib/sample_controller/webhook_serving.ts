/**
 * The reference controller's webhook server, from its flags: certificate files (mounted from cert-manager
 * or a Secret, followed as they change), or for a development control plane (`--webhook-url`) a generated
 * certificate and the webhook configurations registered by the controller itself.
 * @module
 */
import type { KubeClient } from "../client/mod.ts";
import { ApiError } from "../client/mod.ts";
import { certificateFiles, type CertificateSource, generatedCertificate } from "../observe/mod.ts";
import type { Logger } from "../log/logger.ts";
import type { MetricsRegistry } from "../metrics/registry.ts";
import {
  CUSTOM_RESOURCE_DEFINITIONS,
  MUTATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
} from "../resources/refs.ts";
import { isCertificateHost } from "../x509/self_signed.ts";
import {
  crdConversion,
  serveWebhooks,
  type WebhookConfigurations,
  webhookConfigurations,
  webhookMetricsFor,
  type WebhookTarget,
} from "../webhook/mod.ts";
import type { ControllerFlags } from "./controller_flags.ts";
import { fooConversion, fooDefaulting, fooValidation } from "./foo_webhooks.ts";
import { FIELD_MANAGER } from "./types.ts";

/** The name of both generated webhook configurations. */
export const WEBHOOK_CONFIGURATION_NAME = "kubeloop-sample-controller";

/** The running webhooks (an object, not a bare promise, which `await` would wait for). */
export interface FooWebhooks {
  /** Resolves once the server stopped (and, with `--webhook-url`, the configurations were removed). */
  readonly finished: Promise<void>;
}

/** Options of {@linkcode serveFooWebhooks}. */
export interface FooWebhookOptions {
  /** Registers and removes the configurations in `--webhook-url` mode (needs rights to write them). */
  client: Pick<KubeClient, "patch" | "delete" | "get">;
  /** Receives the webhook metrics. */
  registry: MetricsRegistry;
  /** Parent logger. */
  logger: Logger;
  /** The controller's own namespace: never intercepted. */
  namespace: string;
  /** Stops the server (and, in `--webhook-url` mode, removes the configurations). */
  signal: AbortSignal;
}

/**
 * Serves the Foo webhooks when `--webhook-bind-address` is set, until `signal` aborts; resolves once
 * listening (and, with `--webhook-url`, registered); without the flag, at once, with nothing served.
 * Throws `CertificateError` for unusable certificate files and `ApiError` when the registration is refused.
 */
export async function serveFooWebhooks(
  flags: Pick<
    ControllerFlags,
    "webhookBindAddress" | "webhookCertPath" | "webhookCertName" | "webhookCertKey" | "webhookUrl"
  >,
  options: FooWebhookOptions,
): Promise<FooWebhooks> {
  if (flags.webhookBindAddress === "0") return { finished: Promise.resolve() };
  const { signal } = options;
  const logger = options.logger.child({ component: "webhook" });
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

/**
 * The configurations of the Foo webhooks (manifests/webhook/webhook_configurations.yaml holds them for the
 * in-cluster Service; a test keeps the two equal).
 */
export function fooWebhookConfigurations(
  target: WebhookTarget,
  namespace: string,
  caBundle?: string,
): WebhookConfigurations {
  return webhookConfigurations({
    name: WEBHOOK_CONFIGURATION_NAME,
    webhooks: [fooDefaulting, fooValidation],
    target,
    ...(caBundle === undefined ? {} : { caBundle }),
    namespace,
    metadata: {
      labels: {
        "app.kubernetes.io/name": "kubeloop-sample-controller",
        "app.kubernetes.io/part-of": "kubeloop",
      },
    },
  });
}

async function registerAt(
  client: Pick<KubeClient, "patch" | "get">,
  url: string,
  caBundle: string,
  namespace: string,
  logger: Logger,
): Promise<void> {
  const { validating, mutating } = fooWebhookConfigurations({ url }, namespace, caBundle);
  const apply = { type: "apply", fieldManager: FIELD_MANAGER, force: true } as const;
  await client.patch(VALIDATING_WEBHOOK_CONFIGURATIONS, WEBHOOK_CONFIGURATION_NAME, validating, apply);
  await client.patch(MUTATING_WEBHOOK_CONFIGURATIONS, WEBHOOK_CONFIGURATION_NAME, mutating, apply);
  const crd = await client.get(CUSTOM_RESOURCE_DEFINITIONS, fooConversion.crd);
  if (crd.spec.conversion?.strategy === "Webhook") {
    const conversion = crdConversion(fooConversion, { target: { url }, caBundle });
    // A merge patch keeps what it does not name: the manifests' `service` must go, or the CRD has both.
    const clientConfig = { ...conversion.webhook?.clientConfig, service: null };
    const patch = {
      spec: { conversion: { ...conversion, webhook: { ...conversion.webhook, clientConfig } } },
    };
    await client.patch(CUSTOM_RESOURCE_DEFINITIONS, fooConversion.crd, patch, { type: "merge" });
    logger.info("Registered the Foo webhooks and conversion", { url });
  } else {
    logger.info(
      "Registered the Foo webhooks; the Foo CRD serves one version, so there is no conversion to register " +
        "(manifests/webhook/foos_v1beta1.yaml adds v1beta1)",
      { url },
    );
  }
}

async function unregister(client: Pick<KubeClient, "delete">, logger: Logger): Promise<void> {
  // The shutdown signal has fired already: the removal gets a few seconds of its own.
  const signal = AbortSignal.timeout(5_000);
  for (const ref of [VALIDATING_WEBHOOK_CONFIGURATIONS, MUTATING_WEBHOOK_CONFIGURATIONS]) {
    try {
      await client.delete(ref, WEBHOOK_CONFIGURATION_NAME, { signal });
    } catch (error) {
      if (error instanceof ApiError && error.isNotFound) continue;
      logger.error("Cannot remove a webhook configuration; remove it by hand or Foo writes may fail", {
        kind: ref.kind,
        name: WEBHOOK_CONFIGURATION_NAME,
        error,
      });
    }
  }
  logger.info("Removed the Foo webhook configurations");
}
