/**
 * Webhook certificates nobody manages by hand: a CA and serving certificates generated at first start and
 * kept in one Secret, so every replica serves the same chain; the CA written into the caBundle of the
 * webhook configurations and CRD conversions; the serving certificate renewed, and the CA rotated with
 * both CAs trusted during the overlap, by the leader only; every replica switching within a stated bound.
 * docs/webhooks.md ("Self-managed certificates") states the protocol, what the Secret holds, the RBAC and
 * what happens on failure.
 *
 * @example Serve webhooks with self-managed certificates
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   allow,
 *   CONFIG_MAPS,
 *   KubeClient,
 *   loadConfig,
 *   SECRETS,
 *   selfManagedCertificates,
 *   serveWebhooks,
 *   validatingWebhook,
 * } from "@kubeloop/kubeloop";
 *
 * const stop = new AbortController();
 * await using client = new KubeClient(await loadConfig());
 * const namespace = client.namespace; // in a pod: the controller's own
 * const secretName = `example-webhook-certs-${crypto.randomUUID().slice(0, 8)}`;
 * const certificates = await selfManagedCertificates({
 *   client,
 *   namespace,
 *   secretName,
 *   hosts: ["my-webhook.my-system.svc", "my-webhook.my-system.svc.cluster.local"],
 *   // The configurations and CRDs whose caBundle it keeps; one not created yet is skipped until it is.
 *   targets: { validating: ["my-controller"], mutating: ["my-controller"], crds: ["widgets.example.com"] },
 *   // fence: the LeaseFence your LeaderElector grants; without one, this replica acts as the leader.
 *   signal: stop.signal,
 * });
 * const webhooks = [validatingWebhook({ name: "widgets.example.com", resource: CONFIG_MAPS, validate: allow })];
 * const server = serveWebhooks({ address: "127.0.0.1:0", certificates, webhooks, signal: stop.signal });
 * // Every replica reads the same chain from the Secret, so any of them can answer the API server.
 * const secret = await client.get(SECRETS, secretName, { namespace });
 * assert.equal(secret.type, "kubernetes.io/tls");
 * stop.abort();
 * await Promise.all([server.finished, certificates.finished]);
 * await client.delete(SECRETS, secretName, { namespace });
 * ```
 * @module
 */
export {
  type SelfManagedCertificates,
  selfManagedCertificates,
  type SelfManagedCertificatesOptions,
} from "./self_managed_certificates.ts";
export type { CaBundleTargets } from "./ca_bundle_targets.ts";
export { DEFAULT_ROTATION_POLICY, type RotationPolicy, rotationPolicy } from "./rotation_policy.ts";
