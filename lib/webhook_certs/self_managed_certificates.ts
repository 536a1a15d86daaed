/**
 * Webhook certificates nobody manages by hand: a CA and serving certificates kept in one Secret, the CA
 * written into the webhook configurations' and CRDs' caBundle, both rotated before they expire.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import { Informer } from "../cache/informer.ts";
import type { LeaseFence } from "../leader/lease_fence.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import type { CertificateSource } from "../observe/certificate_source.ts";
import type { Secret } from "../resources/core_v1.ts";
import { SECRETS } from "../resources/refs.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import { ipAddressBytes } from "../_internal/ip_address.ts";
import { ipText } from "../x509/general_names.ts";
import { isCertificateHost } from "../x509/issue_certificate.ts";
import type { ListWatcher } from "../watch/list_watcher.ts";
import type { CaBundleTargets } from "./ca_bundle_targets.ts";
import { driveRotation } from "./rotation_driver.ts";
import { type RotationPolicy, rotationPolicy } from "./rotation_policy.ts";
import { SecretCertificateSource } from "./secret_source.ts";

/** Options of {@linkcode selfManagedCertificates}. */
export interface SelfManagedCertificatesOptions {
  /**
   * Reads and watches the Secret, creates it, and on the leader updates it and patches the caBundles.
   * Needs get/list/watch/create/update on the Secret, get/patch on the targets.
   */
  client: Pick<KubeClient, "get" | "create" | "replace" | "patch"> & ListWatcher;
  /** The Secret's namespace (the controller's own). */
  namespace: string;
  /** The Secret's name. */
  secretName: string;
  /**
   * Names the serving certificate is valid for: the Service's `<svc>.<ns>.svc` and
   * `<svc>.<ns>.svc.cluster.local`, and 127.0.0.1 or the host of a `url:` target.
   */
  hosts: readonly string[];
  /** The objects whose caBundle holds the CA. */
  targets: CaBundleTargets;
  /**
   * The leader's write fence: only while it is valid are the Secret updated and the caBundles patched,
   * and it is checked right before each such write. Every replica creates a missing Secret (a create
   * cannot overwrite another's) and serves what the Secret holds.
   * @default {none: this replica always leads}
   */
  fence?: LeaseFence;
  /**
   * Lifetimes and periods (see `RotationPolicy`).
   * @default {{}}
   */
  policy?: Partial<RotationPolicy>;
  /**
   * Common name of generated CAs; the time of generation is appended.
   * @default {"kubeloop-webhook-ca"}
   */
  commonName?: string;
  /**
   * Labels of the Secret.
   * @default {{}}
   */
  labels?: Readonly<Record<string, string>>;
  /** Stops the watch and the rotation. */
  signal: AbortSignal;
  /**
   * Rotation and certificate lines; never key material.
   * @default {noopLogger}
   */
  logger?: Logger;
  /**
   * Time source of validity, renewal and waits.
   * @default {systemClock}
   */
  clock?: Clock;
}

/** The running certificates: serve them with `serveWebhooks({ certificates })`. */
export interface SelfManagedCertificates extends CertificateSource {
  /**
   * Checks the Secret and (on the leader) the caBundles now instead of at the next check period: after
   * creating a target, say, so that it gets the CA at once.
   */
  recheck(): void;
  /** Resolves once the watch and the rotation stopped after `signal` aborted. */
  readonly finished: Promise<void>;
}

/**
 * Starts the self-managed certificates and resolves once a serving certificate is known: the Secret's,
 * or, when there is none, one this replica created (racing replicas: one create wins, the others read
 * it). Every replica, leader or not, watches the Secret and serves its certificate; the leader (per
 * `fence`) renews and rotates them and keeps the caBundles equal to the Secret's `ca.crt`.
 *
 * Bound: a replica serves a certificate written to the Secret within its watch's latency, and at the
 * latest `checkPeriodMs` plus one read later, since it reads the Secret that often whatever its watch
 * does. The old CA stays in the caBundles for `overlapMs` (at least `checkPeriodMs + propagationMs`) after
 * the switch. See docs/webhooks.md for the protocol.
 * @throws {RangeError} for a policy that cannot rotate safely, {@linkcode TypeError} for a host that is no
 *   DNS name or IP address; rejects with `signal.reason` when it aborts before a certificate is known.
 */
export async function selfManagedCertificates(
  options: SelfManagedCertificatesOptions,
): Promise<SelfManagedCertificates> {
  const { client, namespace, secretName, signal } = options;
  // Not "secret": the logger redacts fields of that name.
  const logger = (options.logger ?? noopLogger).child({ store: `${namespace}/${secretName}` });
  const clock = options.clock ?? systemClock;
  const policy = rotationPolicy(options.policy);
  const hosts = [...new Set(options.hosts.map(canonicalHost))];
  if (hosts.length === 0) throw new TypeError("Self-managed certificates need at least one host");
  const source = new SecretCertificateSource(logger);
  const wake = { wakeUp: () => {} };
  const informer = new Informer<Secret>(client, SECRETS, {
    namespace,
    fieldSelector: `metadata.name=${secretName}`,
    logger: logger.child({ component: "informer" }),
    clock,
  });
  informer.subscribe({
    onAdd: (secret) => (source.offerEvent(secret as Secret), wake.wakeUp()),
    onUpdate: (_old, secret) => (source.offerEvent(secret as Secret), wake.wakeUp()),
    onDelete: () => (source.offerEvent(undefined), wake.wakeUp()),
  });
  const watching = informer.run({ signal });
  const rotating = driveRotation(
    {
      client,
      namespace,
      secretName,
      labels: options.labels ?? {},
      targets: options.targets,
      config: { policy, hosts },
      commonName: options.commonName ?? "kubeloop-webhook-ca",
      fence: options.fence,
      source,
      clock,
      logger,
    },
    signal,
    wake,
  );
  const finished = Promise.all([watching, rotating]).then(() => source.settled());
  try {
    await source.ready(signal);
  } catch (error) {
    await finished;
    throw error;
  }
  return {
    current: () => source.current(),
    subscribe: (listener) => source.subscribe(listener),
    recheck: () => wake.wakeUp(),
    finished,
  };
}

/**
 * IP literals as the certificate reader writes them back (IPv6 as eight hex groups), so the leader can
 * compare the stored certificate's names with these; DNS names as given.
 */
function canonicalHost(host: string): string {
  const ip = ipAddressBytes(host);
  if (ip) return ipText(ip);
  if (!isCertificateHost(host)) {
    throw new TypeError(`Invalid host "${host}" for a certificate: not a DNS name, IPv4 or IPv6 address`);
  }
  return host;
}
