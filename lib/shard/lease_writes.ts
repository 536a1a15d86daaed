/**
 * Between the protocol's views and the API's Lease objects: what the driver (and the simulation in the
 * tests) writes for each {@linkcode WriteOp}, how a listed Lease becomes a {@linkcode LeaseView}, and
 * which copy of a Lease is the newest. Pure.
 * @module
 */
import type { Lease, LeaseSpec } from "../resources/coordination_v1.ts";
import { formatMicroTime } from "../time/micro_time.ts";
import {
  CONFIG_ANNOTATION,
  GROUP_LABEL,
  type LeaseRole,
  RANGE_ANNOTATION,
  ROLE_LABEL,
} from "./group_leases.ts";
import type { LeaseView, WriteOp } from "./shard_state.ts";

/** Who writes, and with which settings. */
export interface LeaseWriter {
  /** Written to `spec.holderIdentity`. */
  readonly identity: string;
  /** Namespace of the group's Leases. */
  readonly namespace: string;
  /** The group's name (its label value). */
  readonly group: string;
  /** The encoded group configuration, written on every Lease we write. */
  readonly groupConfig: string;
  /** Our lease duration, written rounded up to seconds. */
  readonly leaseMs: number;
}

/** The protocol's view of a Lease of the group; undefined for a Lease without a known role. */
export function viewOf(lease: Lease): LeaseView | undefined {
  const role = lease.metadata.labels?.[ROLE_LABEL];
  if (role !== "config" && role !== "member" && role !== "range") return undefined;
  const s = lease.spec ?? {};
  return {
    name: lease.metadata.name ?? "",
    role,
    holder: s.holderIdentity ?? "",
    durationMs: (s.leaseDurationSeconds ?? 0) * 1000,
    record: JSON.stringify([s.holderIdentity ?? "", s.renewTime, s.acquireTime, s.leaseDurationSeconds]),
    config: lease.metadata.annotations?.[CONFIG_ANNOTATION] ?? "",
  };
}

/**
 * The Lease to write for `op` at `now`: `create` when there is no `base` (the Lease as we last saw it,
 * whose resourceVersion makes the write a compare-and-swap), a replace of `base` otherwise.
 */
export function leaseFor(
  op: WriteOp,
  name: string,
  base: Lease | undefined,
  writer: LeaseWriter,
  now: number,
  index?: number,
): { create: boolean; lease: Lease } {
  const role: LeaseRole = op === "createConfig" || op === "replaceConfig"
    ? "config"
    : op === "member" || op === "releaseMember"
    ? "member"
    : "range";
  const time = formatMicroTime(now);
  const metadata = {
    ...(base?.metadata ?? { name, namespace: writer.namespace }),
    labels: { ...base?.metadata.labels, [GROUP_LABEL]: writer.group, [ROLE_LABEL]: role },
    annotations: {
      ...base?.metadata.annotations,
      [CONFIG_ANNOTATION]: writer.groupConfig,
      ...(index === undefined ? {} : { [RANGE_ANNOTATION]: String(index) }),
    },
  };
  const spec = base?.spec ?? {};
  const lease = (newSpec: LeaseSpec): { create: boolean; lease: Lease } => ({
    create: base === undefined,
    lease: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata, spec: newSpec },
  });
  switch (op) {
    case "createConfig":
    case "replaceConfig":
      return lease({});
    case "release":
    case "releaseMember":
      // Released: no holder and a 1 s duration, as leader election hands a Lease back.
      return lease({ ...spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: time });
    case "renew":
    case "member":
    case "claim": {
      const ours = spec.holderIdentity === writer.identity && base !== undefined;
      const transitions = spec.leaseTransitions ?? 0;
      return lease({
        ...spec,
        holderIdentity: writer.identity,
        leaseDurationSeconds: Math.ceil(writer.leaseMs / 1000),
        acquireTime: ours && spec.acquireTime ? spec.acquireTime : time,
        renewTime: time,
        leaseTransitions: ours || base === undefined ? transitions : transitions + 1,
      });
    }
  }
}
