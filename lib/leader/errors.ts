/**
 * Leadership was lost: the Lease could not be renewed within the renew deadline, or another holder took it.
 * The reason of the leading signal a `LeaderElector` aborts, and what `Manager.run` rejects with;
 * the process should exit and start again as a candidate.
 */
export class LeaderElectionLostError extends Error {
  /** `namespace/name` of the Lease. */
  readonly lease: string;
  /** `lease` names the Lease; `detail` says how it was lost. */
  constructor(lease: string, detail = "could not be renewed") {
    super(`Leader election lost: lease "${lease}" ${detail}`);
    this.name = "LeaderElectionLostError";
    this.lease = lease;
  }
}

/** Thrown by `LeaseFence.check` when this process may not write on behalf of a leader. */
export class NotLeaderError extends Error {
  /** `namespace/name` of the Lease, or "" before a LeaderElector used the fence. */
  readonly lease: string;
  /** `lease` names the Lease the fence belongs to. */
  constructor(message: string, lease: string) {
    super(message);
    this.name = "NotLeaderError";
    this.lease = lease;
  }
}
