/**
 * The objects that tell kube-apiserver to call the webhooks: a ValidatingWebhookConfiguration, a
 * MutatingWebhookConfiguration and a CRD's `spec.conversion`, generated from the same declarations the
 * server serves, with defaults that cannot lock a cluster out.
 * @module
 */
import type { LabelSelector } from "../resources/apimachinery.ts";
import type {
  AdmissionregistrationV1WebhookClientConfig,
  MutatingWebhook,
  MutatingWebhookConfiguration,
  ValidatingWebhook,
  ValidatingWebhookConfiguration,
} from "../resources/admissionregistration_v1.ts";
import type { CustomResourceConversion } from "../resources/apiextensions_v1.ts";
import type { ObjectMeta } from "../resources/object.ts";
import type { AdmissionWebhook } from "./admission_webhook.ts";
import type { ConversionWebhook } from "./conversion_webhook.ts";
import { encodeBase64 } from "./_base64.ts";

/** How kube-apiserver reaches the webhook server. */
export type WebhookTarget =
  | {
    /** A Service in front of the controller's pods (in a cluster). */
    readonly service: {
      /** The Service's namespace. */
      readonly namespace: string;
      /** The Service's name. */
      readonly name: string;
      /**
       * The Service's port.
       * @default {443}
       */
      readonly port?: number;
    };
  }
  | {
    /**
     * The server's base URL, e.g. "https://127.0.0.1:9443", for a development control plane that can reach
     * the process directly (`kubeloop`'s local control plane, kind with host networking).
     */
    readonly url: string;
  };

/** Options of {@linkcode webhookConfigurations}. */
export interface WebhookConfigurationsOptions {
  /** The name of both configurations, e.g. "kubeloop-sample-controller". */
  name: string;
  /** The declared webhooks; each goes into the configuration of its type. */
  webhooks: readonly AdmissionWebhook[];
  /** Where the API server sends the reviews. */
  target: WebhookTarget;
  /**
   * The CA (PEM) that signed the server's certificate, or the certificate itself when it is self-signed.
   * @default {none: a CA injector (cert-manager's cainjector, or kubeloop's own) fills it in}
   */
  caBundle?: string;
  /**
   * The controller's own namespace. Excluded from every webhook, with kube-system, so neither the
   * controller's own pods nor the cluster's system can be blocked by a webhook that is down.
   */
  namespace: string;
  /**
   * Labels and annotations of both objects (e.g. cert-manager's `cert-manager.io/inject-ca-from`).
   * @default {{}}
   */
  metadata?: Pick<ObjectMeta, "labels" | "annotations">;
}

/** The generated configurations; a type with no webhook is absent. */
export interface WebhookConfigurations {
  /** The validating webhooks. */
  validating?: ValidatingWebhookConfiguration;
  /** The mutating webhooks. */
  mutating?: MutatingWebhookConfiguration;
}

/** Namespaces no generated webhook intercepts, besides the controller's own. */
export const ALWAYS_EXCLUDED_NAMESPACES: readonly string[] = ["kube-system"];

/**
 * The configurations for `webhooks`. Every webhook gets: `admissionReviewVersions: ["v1"]`, its
 * `sideEffects`, `timeoutSeconds` and `failurePolicy` (stated, never left to the server's default),
 * `matchPolicy: Equivalent` (requests in another version of the resource are converted and sent too, so a
 * new version cannot bypass the check), one rule for its resource, and a namespaceSelector that adds to the
 * declared one the exclusion of kube-system and `namespace` (by their `kubernetes.io/metadata.name` labels,
 * which the API server sets on every namespace). Cluster-scoped resources have no namespace to exclude.
 */
export function webhookConfigurations(options: WebhookConfigurationsOptions): WebhookConfigurations {
  const { name, target, namespace } = options;
  const names = new Set<string>();
  for (const webhook of options.webhooks) {
    if (names.has(webhook.name)) throw new TypeError(`Two webhooks are named "${webhook.name}"`);
    names.add(webhook.name);
  }
  const metadata: ObjectMeta = { name, ...structuredClone(options.metadata ?? {}) };
  const common = (webhook: AdmissionWebhook): ValidatingWebhook => ({
    name: webhook.name,
    admissionReviewVersions: ["v1"],
    clientConfig: clientConfig(target, webhook.path, options.caBundle),
    rules: [{
      apiGroups: [webhook.resource.group],
      apiVersions: [webhook.resource.version],
      resources: [
        webhook.resource.plural,
        ...webhook.subresources.map((s) => `${webhook.resource.plural}/${s}`),
      ],
      operations: [...webhook.operations],
      scope: webhook.resource.namespaced ? "Namespaced" : "Cluster",
    }],
    failurePolicy: webhook.failurePolicy,
    sideEffects: webhook.sideEffects,
    timeoutSeconds: webhook.timeoutSeconds,
    matchPolicy: "Equivalent",
    namespaceSelector: excluding(webhook.namespaceSelector, [...ALWAYS_EXCLUDED_NAMESPACES, namespace]),
    ...(webhook.objectSelector ? { objectSelector: structuredClone(webhook.objectSelector) } : {}),
    ...(webhook.matchConditions.length > 0
      ? { matchConditions: structuredClone([...webhook.matchConditions]) }
      : {}),
  });
  const validating = options.webhooks.filter((w) => w.type === "validating").map(common);
  const mutating = options.webhooks.filter((w) => w.type === "mutating").map((webhook): MutatingWebhook => ({
    ...common(webhook),
    reinvocationPolicy: webhook.reinvocationPolicy ?? "Never",
  }));
  return {
    ...(validating.length > 0
      ? {
        validating: {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "ValidatingWebhookConfiguration",
          metadata: structuredClone(metadata),
          webhooks: validating,
        },
      }
      : {}),
    ...(mutating.length > 0
      ? {
        mutating: {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "MutatingWebhookConfiguration",
          metadata: structuredClone(metadata),
          webhooks: mutating,
        },
      }
      : {}),
  };
}

/** Options of {@linkcode crdConversion}. */
export interface CrdConversionOptions {
  /** Where the API server sends the reviews. */
  target: WebhookTarget;
  /**
   * The CA (PEM) that signed the server's certificate.
   * @default {none: a CA injector fills it in}
   */
  caBundle?: string;
}

/** The `spec.conversion` of the CRD `conversion` converts: strategy Webhook, ConversionReview v1. */
export function crdConversion(
  conversion: ConversionWebhook,
  options: CrdConversionOptions,
): CustomResourceConversion {
  return {
    strategy: "Webhook",
    webhook: {
      conversionReviewVersions: ["v1"],
      clientConfig: clientConfig(options.target, conversion.path, options.caBundle),
    },
  };
}

function clientConfig(
  target: WebhookTarget,
  path: string,
  caBundle: string | undefined,
): AdmissionregistrationV1WebhookClientConfig {
  const ca = caBundle === undefined ? {} : { caBundle: encodeBase64(caBundle) };
  if ("url" in target) {
    const base = new URL(target.url);
    if (base.protocol !== "https:" || base.search || base.hash || base.username) {
      throw new TypeError(
        `The webhook URL "${target.url}" must be https://host[:port] without query or credentials`,
      );
    }
    return { url: `${base.origin}${base.pathname.replace(/\/+$/, "")}${path}`, ...ca };
  }
  const { namespace, name, port } = target.service;
  return { service: { namespace, name, path, port: port ?? 443 }, ...ca };
}

/** `selector` with one more requirement: the namespace's name is none of `namespaces`. */
function excluding(selector: LabelSelector | undefined, namespaces: readonly string[]): LabelSelector {
  const out = structuredClone(selector ?? {});
  out.matchExpressions = [
    ...(out.matchExpressions ?? []),
    { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [...new Set(namespaces)] },
  ];
  return out;
}
