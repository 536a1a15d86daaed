/**
 * Scale-out: replicas of one controller split the objects between them by a hash of each object's uid (or
 * namespace), cut into ranges that replicas claim with Leases; with kube-apiserver's sharded list and watch
 * (v1.36+, gate `ShardedListAndWatch`) each replica's caches hold only its share. A range changes hands only
 * after its holder drained and released it, or after its claim expired; every write of a reconcile is fenced
 * by its range's claim. See {@linkcode ShardCoordinator} and docs/sharding.md.
 * @module
 */
export { type ShardClient, ShardCoordinator, type ShardTicket } from "./shard_coordinator.ts";
export type { ShardCoordinatorOptions } from "./shard_coordinator_options.ts";
export { NotShardOwnerError, ShardConfigError, type ShardConfigReason } from "./errors.ts";
export { ShardFence } from "./shard_fence.ts";
export { hashInput, type PartitionSource, ShardPartition } from "./shard_partition.ts";
export { fnv1a64Hex, MAX_RANGES, rangeBounds, rangeOf } from "./hash_range.ts";
export { type ShardKey, shardSelector } from "./shard_selector.ts";
export { probeShardSelector, type SelectorSupport } from "./selector_probe.ts";
export { assignRanges } from "./assignment.ts";
export type { ReviewCreator } from "./permissions.ts";
export type { FenceTicket } from "./shard_fence.ts";
export type { KubeObject, ResourceRef } from "../resources/object.ts";
export type { Logger } from "../log/logger.ts";
export type { Clock } from "../time/clock.ts";
