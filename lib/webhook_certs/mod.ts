/**
 * Webhook certificates nobody manages by hand: a CA and serving certificates generated at first start and
 * kept in one Secret, so every replica serves the same chain; the CA written into the caBundle of the
 * webhook configurations and CRD conversions; the serving certificate renewed, and the CA rotated with
 * both CAs trusted during the overlap, by the leader only; every replica switching within a stated bound.
 * docs/webhooks.md ("Self-managed certificates") states the protocol, what the Secret holds, the RBAC and
 * what happens on failure.
 *
 * @example Serve webhooks with self-managed certificates
 * ```ts ignore
 * import { KubeClient, LeaseFence, loadConfig, selfManagedCertificates, serveWebhooks } from "@kubeloop/kubeloop";
 *
 * const fence = new LeaseFence(); // the one your LeaderElector grants; omit it without leader election
 * const client = new KubeClient(await loadConfig());
 * const certificates = await selfManagedCertificates({
 *   client,
 *   namespace: "my-system",
 *   secretName: "my-webhook-certs",
 *   hosts: ["my-webhook.my-system.svc", "my-webhook.my-system.svc.cluster.local"],
 *   targets: { validating: ["my-controller"], mutating: ["my-controller"], crds: ["widgets.example.com"] },
 *   fence,
 *   signal,
 * });
 * const server = serveWebhooks({ address: ":9443", certificates, webhooks, conversions, signal });
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
