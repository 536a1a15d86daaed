import type { Logger } from "../log/logger.ts";
import type { Clock } from "../time/clock.ts";
import type { ShardKey } from "./shard_selector.ts";

/** Options of `ShardCoordinator`. Every replica of a group must share `group`, `ranges` and `key`. */
export interface ShardCoordinatorOptions {
  /** The group's name: its Leases' label value and name prefix (at most 50 characters). */
  readonly group: string;
  /** Namespace of the group's Leases. */
  readonly namespace: string;
  /**
   * Number of hash ranges, a power of two. More ranges balance better (with N replicas the largest share
   * is ⌈K/N⌉/K) and cost one Lease renewal each per retry period.
   * @default {16}
   */
  readonly ranges?: number;
  /**
   * What objects are hashed on: `uid` spreads evenly; `namespace` keeps a namespace on one replica (and
   * lets the server filter owned objects too).
   * @default {"uid"}
   */
  readonly key?: ShardKey;
  /**
   * Server-side filtering: `auto` detects it, `server` requires it (a server that ignores the selector is
   * a ShardConfigError), `client` never asks the server and filters every object here.
   * @default {"auto"}
   */
  readonly selector?: "auto" | "server" | "client";
  /**
   * This replica's identity.
   * @default {<hostname>_<random suffix>}
   */
  readonly identity?: string;
  /**
   * Written on our Leases: how long the others wait after our last renewal before taking over.
   * @default {15_000}
   */
  readonly leaseDurationMs?: number;
  /**
   * A claim (and the membership) ends this long after its last successful write STARTED.
   * @default {10_000}
   */
  readonly renewDeadlineMs?: number;
  /**
   * How often the Leases are listed and ours renewed.
   * @default {2_000}
   */
  readonly retryPeriodMs?: number;
  /**
   * How long a range that moves waits for its in-flight reconciles before aborting them.
   * @default {10_000}
   */
  readonly drainTimeoutMs?: number;
  /**
   * After aborting them, how long more before the claim is given up without a release.
   * @default {5_000}
   */
  readonly abortGraceMs?: number;
  /**
   * Check at start (SelfSubjectAccessReviews) that RBAC lets this identity get, list, create and
   * update Leases in `namespace`.
   * @default {true}
   */
  readonly checkPermissions?: boolean;
  /**
   * Time source of claims and the fence.
   * @default {systemClock}
   */
  readonly clock?: Clock;
  /**
   * Structured logs (claims, releases, losses).
   * @default {noopLogger}
   */
  readonly logger?: Logger;
  /**
   * Source of jitter in [0, 1).
   * @default {Math.random}
   */
  readonly random?: () => number;
}
