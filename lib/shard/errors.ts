/** Why a replica refused to join its shard group. */
export type ShardConfigReason =
  /** Another range count or key runs in the group, or two replicas share an identity. */
  | "mismatch"
  /** RBAC does not let this replica read and write the group's Leases. */
  | "forbidden"
  /** The API server answered the shard selector with an error. */
  | "selectorRejected"
  /** `--shard-selector=server`, but the API server ignores shard selectors. */
  | "selectorUnsupported";

/**
 * A configuration that sharding refuses to run with. The replica claims nothing (or gives up what it
 * held, unreleased, so the others take over when the claims expire) and the process should exit.
 */
export class ShardConfigError extends Error {
  /** What is wrong. */
  readonly reason: ShardConfigReason;
  /** `message` names the mismatch; `reason` classifies it. */
  constructor(message: string, reason: ShardConfigReason, options?: ErrorOptions) {
    super(message, options);
    this.name = "ShardConfigError";
    this.reason = reason;
  }
}

/** Thrown by the shard write fence: this replica may not write for that range (or at all) now. */
export class NotShardOwnerError extends Error {
  /** The range the write was for; undefined for a write outside any reconcile. */
  readonly range: number | undefined;
  /** `range` is the range the refused write belonged to. */
  constructor(message: string, range?: number) {
    super(message);
    this.name = "NotShardOwnerError";
    this.range = range;
  }
}
