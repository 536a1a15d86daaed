/**
 * Lease-based leader election (`coordination.k8s.io/v1`). Reduces duplicate work across replicas; a
 * local {@linkcode LeaseFence} stops writes past the renew deadline — see {@linkcode LeaderElector} for
 * what it does not guarantee.
 * @module
 */
export { LeaderElector, type LeaderElectorOptions, type LeaderMetrics } from "./elector.ts";
export { leaderMetricsFor } from "./leader_metrics_registry.ts";
export { LeaderElectionLostError, NotLeaderError } from "./errors.ts";
export { LeaseFence, type LeaseFenceOptions } from "./lease_fence.ts";
export type { Lease, LeaseClient, LeaseRequestOptions, LeaseSpec } from "./lease_client.ts";
export type { KubeObject, ObjectMeta, ResourceRef } from "../resources/object.ts";
export type { Logger } from "../log/logger.ts";
export type { Clock } from "../time/clock.ts";
