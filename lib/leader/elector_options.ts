import type { Logger } from "../log/logger.ts";
import type { Clock } from "../time/clock.ts";
import type { LeaseFence } from "./lease_fence.ts";

/** Receives leadership changes, e.g. to drive the `leader_election_master_status{name}` gauge. */
export interface LeaderMetrics {
  /** Called with true when this process starts leading `name`, false when it stops. */
  setLeading(name: string, leading: boolean): void;
}

/** Options of {@linkcode LeaderElector}. */
export interface LeaderElectorOptions {
  /** Name of the Lease object; one per set of competing replicas. */
  leaseName: string;
  /** Namespace of the Lease object. */
  namespace: string;
  /**
   * This candidate's identity.
   * @default {<hostname>_<random suffix>}
   */
  identity?: string;
  /**
   * How long a non-leader waits after the last observed change before taking over.
   * @default {15_000}
   */
  leaseDurationMs?: number;
  /**
   * How long the leader keeps trying to renew before giving up.
   * @default {10_000}
   */
  renewDeadlineMs?: number;
  /**
   * Interval between acquire and renew attempts.
   * @default {2_000}
   */
  retryPeriodMs?: number;
  /**
   * Acquire attempts wait `retryPeriodMs * (1 + random * jitterFactor)`.
   * @default {1.2}
   */
  jitterFactor?: number;
  /**
   * On cancel, hand the Lease back so another candidate takes over at once.
   * @default {true}
   */
  releaseOnCancel?: boolean;
  /**
   * Called once leadership is gained. `signal` aborts when leadership is lost or the elector is cancelled;
   * `lost` aborts (with a `LeaderElectionLostError`) only when it is lost, also while work drains after a
   * cancel: then stop writing at once, without a grace period. After a cancel the Lease is still renewed
   * until the returned promise settles, and released only then, so work can finish first.
   * @default {none}
   */
  onStartedLeading?: (signal: AbortSignal, lost: AbortSignal) => void | Promise<void>;
  /**
   * Called after leading ends (and after the release, if any).
   * @default {none}
   */
  onStoppedLeading?: () => void;
  /**
   * Called when a different holder is observed, including this candidate.
   * @default {none}
   */
  onNewLeader?: (identity: string) => void;
  /**
   * Granted until the renew deadline after every successful acquire or renew, revoked when leading ends;
   * pass the same fence as KubeClient's `writeFence` to the client the leading work writes with.
   * @default {no fence}
   */
  fence?: LeaseFence;
  /**
   * Gauge hook.
   * @default {no-op}
   */
  metrics?: LeaderMetrics;
  /**
   * Time source.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Structured logs.
   * @default {noopLogger}
   */
  logger?: Logger;
  /**
   * Source of jitter in [0, 1).
   * @default {Math.random}
   */
  random?: () => number;
}
