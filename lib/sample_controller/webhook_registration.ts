/**
 * The Foo webhook configurations, and their registration at a development URL (`--webhook-url`).
 * @module
 */
import type { KubeClient } from "../client/mod.ts";
import { ApiError } from "../client/mod.ts";
import type { Logger } from "../log/logger.ts";
import {
  CUSTOM_RESOURCE_DEFINITIONS,
  MUTATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
} from "../resources/refs.ts";
import {
  crdConversion,
  type WebhookConfigurations,
  webhookConfigurations,
  type WebhookTarget,
} from "../webhook/mod.ts";
import { fooConversion, fooDefaulting, fooValidation } from "./foo_webhooks.ts";
import { FIELD_MANAGER } from "./types.ts";

/** The name of both generated webhook configurations. */
export const WEBHOOK_CONFIGURATION_NAME = "kubeloop-sample-controller";

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

/**
 * Applies both configurations at `url` (server-side apply) and points the Foo CRD's conversion there, with
 * `caBundle`; without one (self-managed certificates) the caBundle fields are left to their writer.
 */
export async function registerAt(
  client: Pick<KubeClient, "patch" | "get">,
  url: string,
  caBundle: string | undefined,
  namespace: string,
  logger: Logger,
): Promise<void> {
  const { validating, mutating } = fooWebhookConfigurations({ url }, namespace, caBundle);
  const apply = { type: "apply", fieldManager: FIELD_MANAGER, force: true } as const;
  await client.patch(VALIDATING_WEBHOOK_CONFIGURATIONS, WEBHOOK_CONFIGURATION_NAME, validating, apply);
  await client.patch(MUTATING_WEBHOOK_CONFIGURATIONS, WEBHOOK_CONFIGURATION_NAME, mutating, apply);
  const crd = await client.get(CUSTOM_RESOURCE_DEFINITIONS, fooConversion.crd);
  if (crd.spec.conversion?.strategy === "Webhook") {
    const conversion = crdConversion(fooConversion, { target: { url }, ...(caBundle ? { caBundle } : {}) });
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

/** Deletes both configurations (a few seconds of its own: the shutdown signal has fired already). */
export async function unregister(client: Pick<KubeClient, "delete">, logger: Logger): Promise<void> {
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
