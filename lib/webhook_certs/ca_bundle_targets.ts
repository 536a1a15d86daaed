/**
 * The objects whose `caBundle` the self-managed CA is written into: validating and mutating webhook
 * configurations (every webhook of each) and CRDs (their conversion webhook), read back to confirm.
 * @module
 */
import { ApiError } from "../client/api_error.ts";
import type { KubeClient } from "../client/kube_client.ts";
import type { KubeObject, ResourceRef } from "../resources/object.ts";
import {
  CUSTOM_RESOURCE_DEFINITIONS,
  MUTATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
} from "../resources/refs.ts";
import { pemCertificates } from "../x509/certificate.ts";

/** The objects that get the CA, by name. A missing object is skipped (and looked for again next time). */
export interface CaBundleTargets {
  /**
   * ValidatingWebhookConfigurations: every webhook in each.
   * @default {[]}
   */
  readonly validating?: readonly string[];
  /**
   * MutatingWebhookConfigurations: every webhook in each.
   * @default {[]}
   */
  readonly mutating?: readonly string[];
  /**
   * CustomResourceDefinitions: `spec.conversion.webhook.clientConfig` (skipped unless the strategy is Webhook).
   * @default {[]}
   */
  readonly crds?: readonly string[];
}

/** The calls made on the targets. */
export type BundleClient = Pick<KubeClient, "get" | "patch">;

/** One target's state: where its caBundles are (JSON Pointers) and what they hold (base64), or absent. */
interface Found {
  readonly ref: ResourceRef;
  readonly name: string;
  readonly object: KubeObject;
  /** Each clientConfig: its JSON Pointer, its caBundle (undefined: none), its webhook's name and index. */
  readonly configs: readonly {
    readonly pointer: string;
    readonly caBundle: string | undefined;
    readonly webhook?: { readonly index: number; readonly name: string | undefined };
  }[];
}

/** The outcome of {@linkcode readBundles}. */
export interface BundlesRead {
  /** True when every found target holds exactly the bundle's certificates. */
  readonly match: boolean;
  /** Targets not found, as "kind/name". */
  readonly missing: readonly string[];
}

/**
 * Whether every target's caBundle holds exactly the certificates of `bundle` (PEM texts), in any order.
 * Rejects with the API error of a failed read (a 404 only marks the target missing).
 */
export async function readBundles(
  client: BundleClient,
  targets: CaBundleTargets,
  bundle: readonly string[],
  signal: AbortSignal,
): Promise<BundlesRead> {
  const want = certificateSet(bundle.join(""));
  let match = true;
  const missing: string[] = [];
  for (const target of await findAll(client, targets, signal)) {
    if ("missing" in target) {
      missing.push(target.missing);
      continue;
    }
    for (const config of target.configs) {
      if (!sameSet(certificateSet(decodeBundle(config.caBundle)), want)) match = false;
    }
  }
  return { match, missing };
}

/**
 * Writes `bundle` into every target's caBundles: one JSON Patch per object, which tests the
 * resourceVersion and each webhook's name at its index first, so a concurrent change makes the patch
 * fail (to be retried) instead of writing into the wrong webhook.
 */
export async function publishBundles(
  client: BundleClient,
  targets: CaBundleTargets,
  bundle: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  const value = btoa(bundle.join(""));
  for (const target of await findAll(client, targets, signal)) {
    if ("missing" in target || target.configs.length === 0) continue;
    const operations: unknown[] = [
      { op: "test", path: "/metadata/resourceVersion", value: target.object.metadata.resourceVersion },
    ];
    for (const { pointer, webhook } of target.configs) {
      if (webhook) {
        operations.push({ op: "test", path: `/webhooks/${webhook.index}/name`, value: webhook.name });
      }
      operations.push({ op: "add", path: `${pointer}/caBundle`, value });
    }
    await client.patch(target.ref, target.name, operations, { type: "json", signal });
  }
}

async function findAll(
  client: BundleClient,
  targets: CaBundleTargets,
  signal: AbortSignal,
): Promise<(Found | { missing: string })[]> {
  const wanted: [ResourceRef, string][] = [
    ...(targets.validating ?? []).map((n): [ResourceRef, string] => [VALIDATING_WEBHOOK_CONFIGURATIONS, n]),
    ...(targets.mutating ?? []).map((n): [ResourceRef, string] => [MUTATING_WEBHOOK_CONFIGURATIONS, n]),
    ...(targets.crds ?? []).map((n): [ResourceRef, string] => [CUSTOM_RESOURCE_DEFINITIONS, n]),
  ];
  return await Promise.all(wanted.map(async ([ref, name]) => {
    let object: KubeObject;
    try {
      object = await client.get(ref, name, { signal });
    } catch (error) {
      if (error instanceof ApiError && error.isNotFound) return { missing: `${ref.kind}/${name}` };
      throw error;
    }
    return { ref, name, object, configs: clientConfigs(ref, object) };
  }));
}

function clientConfigs(ref: ResourceRef, object: KubeObject): Found["configs"] {
  if (ref === CUSTOM_RESOURCE_DEFINITIONS) {
    const conversion = (object as { spec?: { conversion?: { strategy?: string; webhook?: WithConfig } } })
      .spec?.conversion;
    if (conversion?.strategy !== "Webhook") return [];
    return [{
      pointer: "/spec/conversion/webhook/clientConfig",
      caBundle: conversion.webhook?.clientConfig?.caBundle,
    }];
  }
  const webhooks = (object as { webhooks?: (WithConfig & { name?: string })[] }).webhooks ?? [];
  return webhooks.map((w, index) => ({
    pointer: `/webhooks/${index}/clientConfig`,
    caBundle: w.clientConfig?.caBundle,
    webhook: { index, name: w.name },
  }));
}

interface WithConfig {
  clientConfig?: { caBundle?: string };
}

function decodeBundle(caBundle: string | undefined): string {
  if (!caBundle) return "";
  try {
    return atob(caBundle);
  } catch {
    return "";
  }
}

/** The certificates of a PEM text, as their base64 DER (so line breaks and order do not matter). */
function certificateSet(pem: string): Set<string> {
  return new Set(pemCertificates(pem).map((der) => btoa(String.fromCharCode(...der))));
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}
