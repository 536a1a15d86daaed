/**
 * Lease-based leader election (`coordination.k8s.io/v1`). Reduces duplicate work across replicas;
 * gives no fencing — see {@linkcode LeaderElector} for what it does not guarantee.
 * @module
 */
export { LeaderElector, type LeaderElectorOptions, type LeaderMetrics } from "./elector.ts";
export type { Lease, LeaseClient, LeaseRequestOptions, LeaseSpec } from "./lease_client.ts";
export type { KubeObject, ObjectMeta, ResourceRef } from "../client/types.ts";
export type { Logger } from "../observe/types.ts";
export type { Clock } from "../time/clock.ts";
