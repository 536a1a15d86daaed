import { withTimeout } from "../_internal/with_timeout.ts";
import { LEASES } from "../resources/refs.ts";
import type { Logger } from "../log/logger.ts";
import type { Clock } from "../time/clock.ts";
import { formatMicroTime } from "../time/micro_time.ts";
import type { Lease, LeaseClient, LeaseSpec } from "./lease_client.ts";

/** The candidate a lease record is written for. */
export interface LeaseHolder {
  /** Written to `spec.holderIdentity`. */
  identity: string;
  /** Name of the Lease object. */
  name: string;
  /** Namespace of the Lease object. */
  namespace: string;
  /** Written, rounded up to seconds, to `spec.leaseDurationSeconds`. */
  leaseMs: number;
}

/**
 * The Lease `holder` writes to take or renew `old` (undefined: create it) at `now`. While `leading`
 * and already the holder it is a renewal: acquireTime and leaseTransitions stay, as client-go's lock
 * keeps them, so observers can tell a renewal from a change of leader. Taking over from someone else
 * (or from a released Lease) counts one transition. Fields this project does not manage are kept.
 */
export function leaseRecord(
  old: Lease | undefined,
  holder: LeaseHolder,
  now: number,
  leading: boolean,
): Lease {
  const spec: LeaseSpec = old?.spec ?? {};
  const renewing = spec.holderIdentity === holder.identity && leading;
  const transitions = spec.leaseTransitions ?? 0;
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: old ? { ...old.metadata } : { name: holder.name, namespace: holder.namespace },
    spec: {
      ...spec,
      holderIdentity: holder.identity,
      leaseDurationSeconds: Math.ceil(holder.leaseMs / 1000),
      acquireTime: renewing && spec.acquireTime ? spec.acquireTime : formatMicroTime(now),
      renewTime: formatMicroTime(now),
      leaseTransitions: renewing || !old ? transitions : transitions + 1,
    },
  };
}

/**
 * `lease` handed back at `now`: no holder and a 1 s duration, so the other candidates see a released
 * Lease at their next retry instead of waiting out our full lease duration.
 */
export function releasedLease(lease: Lease, now: number): Lease {
  const time = formatMicroTime(now);
  return {
    ...lease,
    spec: { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1, acquireTime: time, renewTime: time },
  };
}

/** Options of {@linkcode releaseLease}. */
export interface ReleaseLeaseOptions {
  /** Namespace of the Lease. */
  namespace: string;
  /** Gives up on the write after this long. */
  timeoutMs: number;
  /** Measures the timeout and stamps the record. */
  clock: Clock;
  /** Where success and failure are reported. */
  logger: Logger;
}

/**
 * Writes {@linkcode releasedLease} of `lease` (which must be ours, at the resourceVersion we last saw).
 * Never throws: a failed release only costs the others one lease duration, and the caller is shutting
 * down. It is bounded by its own timeout rather than a caller's signal, because it runs after that
 * signal already aborted.
 */
export async function releaseLease(
  client: LeaseClient,
  lease: Lease,
  options: ReleaseLeaseOptions,
): Promise<void> {
  const { clock, logger } = options;
  const released = releasedLease(lease, clock.now());
  try {
    await withTimeout(
      (signal) => client.replace(LEASES, released, { namespace: options.namespace, signal }),
      { timeoutMs: options.timeoutMs, clock, what: "Lease release" },
    );
    logger.info("Released lease");
  } catch (error) {
    logger.warn("Cannot release lease; others take over after it expires", { error: String(error) });
  }
}
