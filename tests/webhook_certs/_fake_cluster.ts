/**
 * A FakeApi holding what the self-managed certificates write into: a validating configuration with two
 * webhooks and a CRD with a conversion webhook; clients that record which replica made which call; and the
 * check that a served certificate chains to a CA the caBundles hold.
 * @module
 */
import assert from "node:assert/strict";
import { FakeApi } from "../../lib/testing/fake_api.ts";
import { CUSTOM_RESOURCE_DEFINITIONS, VALIDATING_WEBHOOK_CONFIGURATIONS } from "../../lib/resources/refs.ts";
import type { ValidatingWebhookConfiguration } from "../../lib/resources/admissionregistration_v1.ts";
import type { CustomResourceDefinition } from "../../lib/resources/apiextensions_v1.ts";
import type { Clock } from "../../lib/time/clock.ts";
import type { TlsMaterial } from "../../lib/x509/issue_certificate.ts";
import { parseCertificate, pemCertificates } from "../../lib/x509/certificate.ts";
import { signedBy } from "../../lib/x509/signature.ts";
import type { CaBundleTargets } from "../../lib/webhook_certs/ca_bundle_targets.ts";

export const NAMESPACE = "hooks-system";
export const SECRET = "hooks-certs";
export const HOSTS = ["hooks.hooks-system.svc", "hooks.hooks-system.svc.cluster.local", "127.0.0.1"];
export const TARGETS: CaBundleTargets = {
  validating: ["hooks"],
  mutating: ["not-installed"], // a missing target is skipped
  crds: ["widgets.example.com"],
};

/** A FakeApi with the targets. */
export function fakeCluster(clock: Clock): FakeApi {
  const api = new FakeApi({ clock, namespace: NAMESPACE });
  const clientConfig = { url: "https://127.0.0.1:9443/validate" };
  api.seed<ValidatingWebhookConfiguration>(VALIDATING_WEBHOOK_CONFIGURATIONS, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "hooks" },
    webhooks: ["a", "b"].map((n) => ({
      name: `${n}.hooks.example.com`,
      clientConfig,
      admissionReviewVersions: ["v1"],
      sideEffects: "None",
    })),
  });
  api.seed<CustomResourceDefinition>(CUSTOM_RESOURCE_DEFINITIONS, {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { kind: "Widget", plural: "widgets" },
      versions: [],
      conversion: { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"], clientConfig } },
    },
  });
  return api;
}

/** The caBundles of every target (base64-decoded), which must all be equal. */
export function caBundles(api: FakeApi): string[] {
  const config = api.object<ValidatingWebhookConfiguration>(VALIDATING_WEBHOOK_CONFIGURATIONS, "hooks")!;
  const crd = api.object<CustomResourceDefinition>(CUSTOM_RESOURCE_DEFINITIONS, "widgets.example.com")!;
  return [
    ...config.webhooks!.map((w) => w.clientConfig.caBundle),
    crd.spec.conversion?.webhook?.clientConfig?.caBundle,
  ].map((b) => (b ? atob(b) : ""));
}

/** Fails unless `served` is valid at `now` and signed by a CA the caBundles (all equal) hold. */
export async function assertTrusted(
  api: FakeApi,
  served: TlsMaterial,
  now: number,
  label: string,
): Promise<void> {
  const bundles = caBundles(api);
  assert.ok(bundles.every((b) => b === bundles[0]), `${label}: the caBundles differ`);
  const leaf = parseCertificate(pemCertificates(served.cert)[0]!);
  assert.ok(
    leaf.notBefore <= now && now < leaf.notAfter,
    `${label}: the served certificate is not valid now`,
  );
  const cas = pemCertificates(bundles[0]!).map(parseCertificate);
  const trusted = await Promise.all(cas.map((ca) => signedBy(leaf, ca)));
  assert.ok(trusted.includes(true), `${label}: served certificate not signed by a CA in the caBundles`);
}

/** Verbs each replica sent, by the client wrapper it was given. */
export function recordingClient(api: FakeApi, calls: string[]): FakeApi {
  return new Proxy(api, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const ref = args[0] as { plural?: string };
        calls.push(`${String(property)} ${ref?.plural ?? ""}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
