import { ApiError } from "../client/api_error.ts";
import type { ListOptions } from "../client/types.ts";
import type { Lease } from "../resources/coordination_v1.ts";
import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject, ObjectList, ResourceRef } from "../resources/object.ts";
import { LEASES } from "../resources/refs.ts";
import { hostnameOr } from "../_internal/hostname.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { type Clock, systemClock, type Timer } from "../time/clock.ts";
import { NotShardOwnerError, ShardConfigError } from "./errors.ts";
import { encodeGroupConfig, GROUP_LABEL, GroupLeaseNames } from "./group_leases.ts";
import { checkRangeCount, rangeOf } from "./hash_range.ts";
import { leaseFor, type LeaseWriter, viewOf } from "./lease_writes.ts";
import { checkLeasePermissions, type ReviewCreator } from "./permissions.ts";
import { probeShardSelector, type SelectorSupport } from "./selector_probe.ts";
import { type FenceTicket, ShardFence } from "./shard_fence.ts";
import { hashInput, type PartitionSource, ShardPartition } from "./shard_partition.ts";
import { checkShardKey, type ShardKey } from "./shard_selector.ts";
import {
  admits,
  initialState,
  type LeaseView,
  memberValid,
  type RangePhase,
  type ShardAction,
  type ShardInput,
  type ShardState,
  step,
  writableEpoch,
  type WriteOp,
} from "./shard_state.ts";
import type { ShardCoordinatorOptions } from "./shard_coordinator_options.ts";

export type { ShardCoordinatorOptions } from "./shard_coordinator_options.ts";

/** What the coordinator needs from the API client; KubeClient satisfies it. */
export interface ShardClient extends ReviewCreator {
  /** Lists one page (the group's Leases; the probe). */
  list<T extends KubeObject>(ref: ResourceRef<T>, options: ListOptions): Promise<ObjectList<T>>;
  /** Creates a Lease. */
  create<T extends KubeObject>(
    ref: ResourceRef<T>,
    obj: T,
    options: { namespace?: string; signal?: AbortSignal },
  ): Promise<T>;
  /** Replaces a Lease at its resourceVersion (409 when stale). */
  replace<T extends KubeObject>(
    ref: ResourceRef<T>,
    obj: T,
    options: { namespace?: string; signal?: AbortSignal },
  ): Promise<T>;
}

/** A reconcile's claim on its object's range; see {@linkcode ShardCoordinator.begin}. */
export interface ShardTicket {
  /** The range. */
  readonly range: number;
  /** Aborts when the claim is lost, or when draining the range outlasts the drain timeout. */
  readonly signal: AbortSignal;
  /** Runs the reconcile so that its writes are fenced by this claim. */
  run<R>(fn: () => Promise<R>): Promise<R>;
  /** The reconcile returned: required, exactly once. */
  end(): void;
}

/**
 * Runs this replica's side of the shard protocol (shard_state.ts) against the API server: one list of the
 * group's Leases and one tick every retry period, the writes the protocol asks for (compare-and-swap on
 * each Lease's resourceVersion), informer shares moved as claims come and go, tickets for reconciles, and
 * the write fence.
 *
 * Guarantees (docs/sharding.md has the argument): work for an object starts only while its range is active
 * here (claimed, renewed within the renew deadline, caches synced to a scope including it); every write a
 * reconcile makes passes {@linkcode fence}, which refuses it once that claim is no longer valid by this
 * process' clock; a range is released only after its in-flight reconciles returned, and otherwise left to
 * expire. Bad configuration (another range count or key in the group, missing Lease RBAC, a server that
 * rejects the selector) rejects `run` with a {@linkcode ShardConfigError} before anything is claimed.
 *
 * @example Share a controller's work with the other replicas of a group
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   CONFIG_MAPS,
 *   KubeClient,
 *   LEASES,
 *   loadConfig,
 *   Manager,
 *   ShardCoordinator,
 *   SharedInformerFactory,
 * } from "@kubeloop/kubeloop";
 *
 * const config = await loadConfig();
 * await using control = new KubeClient(config); // the group's Leases: no rate limit, no fence
 * const namespace = control.namespace;
 * const group = `example-${crypto.randomUUID().slice(0, 8)}`;
 * const shard = new ShardCoordinator(control, { group, namespace, ranges: 4 });
 * // The reconciles' client: each write passes only under the claim on its object's range.
 * await using client = new KubeClient(config, { writeFence: shard.fence });
 * const manager = new Manager(new SharedInformerFactory(client), {
 *   shard,
 *   metricsAddress: "0",
 *   healthAddress: "0",
 * });
 * const stop = new AbortController();
 * const name = `example-${crypto.randomUUID().slice(0, 8)}`;
 * manager.controller({
 *   name: "configmaps",
 *   for: { ref: CONFIG_MAPS, fieldSelector: `metadata.name=${name}` },
 *   namespace,
 *   // Alone in its group, this replica holds every range; with others, only its share gets here.
 *   reconcile: async () => stop.abort(),
 * });
 * const running = manager.run({ signal: stop.signal });
 * await control.create(CONFIG_MAPS, { metadata: { name, namespace } });
 * await running; // the controllers stop, then every range and the membership are released
 * assert.deepEqual(shard.activeRanges(), []);
 * await control.delete(CONFIG_MAPS, name, { namespace });
 * const leases = await control.list(LEASES, { namespace, labelSelector: `shard.kubeloop.dev/group=${group}` });
 * for (const lease of leases.items) await control.delete(LEASES, lease.metadata.name!, { namespace });
 * ```
 */
export class ShardCoordinator {
  /** This replica's identity in the group. */
  readonly identity: string;
  /** The write fence; give it as the `writeFence` of the reconciles' KubeClient. */
  readonly fence: ShardFence;
  readonly #client: ShardClient;
  readonly #o: Required<Omit<ShardCoordinatorOptions, "identity" | "clock" | "logger" | "random">>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #names: GroupLeaseNames;
  readonly #writer: LeaseWriter;
  readonly #partitions = new Map<string, ShardPartition>();
  readonly #activated = new Set<(range: number) => void>();
  readonly #leases = new Map<string, Lease>();
  /** Our clock when our last write to a Lease was answered: lists sent earlier do not override it. */
  readonly #writtenAt = new Map<string, number>();
  readonly #inflight: number[];
  readonly #aborters: (AbortController | undefined)[];
  #state: ShardState;
  #support: SelectorSupport = "client";
  #prepared = false;
  #wake: (() => void) | undefined;

  /** Creates an idle coordinator; nothing is claimed until `run()`. */
  constructor(client: ShardClient, options: ShardCoordinatorOptions) {
    const o = {
      ranges: 16,
      key: "uid" as ShardKey,
      selector: "auto" as const,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      drainTimeoutMs: 10_000,
      abortGraceMs: 5_000,
      checkPermissions: true,
      ...options,
    };
    checkRangeCount(o.ranges);
    checkShardKey(o.key);
    if (o.leaseDurationMs <= o.renewDeadlineMs || o.renewDeadlineMs <= 1.2 * o.retryPeriodMs) {
      throw new RangeError("Shard timing needs leaseDurationMs > renewDeadlineMs > 1.2 * retryPeriodMs");
    }
    this.#o = o;
    this.#client = client;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.identity = options.identity ?? `${hostnameOr("unknown")}_${crypto.randomUUID().slice(0, 8)}`;
    this.#names = new GroupLeaseNames(o.group);
    this.#logger = (options.logger ?? noopLogger).child({ shardGroup: o.group });
    const groupConfig = encodeGroupConfig({ ranges: o.ranges, key: o.key });
    this.#writer = {
      identity: this.identity,
      namespace: o.namespace,
      group: o.group,
      groupConfig,
      leaseMs: o.leaseDurationMs,
    };
    this.#state = initialState({
      identity: this.identity,
      memberName: this.#names.member(this.identity),
      configName: this.#names.config,
      rangeName: (i) => this.#names.range(i),
      groupConfig,
      ranges: o.ranges,
      leaseMs: o.leaseDurationMs,
      renewDeadlineMs: o.renewDeadlineMs,
      drainTimeoutMs: o.drainTimeoutMs,
      abortGraceMs: o.abortGraceMs,
    });
    this.#inflight = new Array(o.ranges).fill(0);
    this.#aborters = new Array(o.ranges).fill(undefined);
    this.fence = new ShardFence(() => {
      if (!memberValid(this.#state, this.#clock.now())) {
        throw new NotShardOwnerError(`Write refused: not a live member of shard group "${o.group}"`);
      }
    });
  }

  /** Number of ranges. */
  get ranges(): number {
    return this.#o.ranges;
  }

  /** The field objects are hashed on. */
  get key(): ShardKey {
    return this.#o.key;
  }

  /** "server" once the API server was found to filter by shard selector, else "client". */
  get selectorSupport(): SelectorSupport {
    return this.#support;
  }

  /** The ranges whose work is admitted here now. */
  activeRanges(): number[] {
    const now = this.#clock.now();
    return this.#state.ranges.flatMap((_, i) => admits(this.#state, i, now) ? [i] : []);
  }

  /** The range `object` belongs to (hashed as `source` says), or undefined when it has no hash input. */
  rangeOf(object: DeepReadonly<KubeObject>, source: PartitionSource = "self"): number | undefined {
    const input = hashInput(object, this.#o.key, source);
    return input === undefined ? undefined : rangeOf(input, this.#o.ranges);
  }

  /**
   * The informer share of `ref`, hashed on the object itself (`self`, the reconciled kind) or on its
   * controlling owner (`controller`, the kinds it owns), so that owned objects are cached where their
   * owner is reconciled. One per resource and source.
   */
  partition(ref: ResourceRef, source: PartitionSource): ShardPartition {
    const id = `${ref.group ?? ""}/${ref.plural}/${source}`;
    let partition = this.#partitions.get(id);
    if (!partition) {
      partition = new ShardPartition(id, this.#o.key, source, this.#o.ranges, () => this.#checkSynced());
      partition.update(this.#state.scopeVersion, [], this.#support === "server");
      this.#partitions.set(id, partition);
    }
    return partition;
  }

  /** Calls `listener(range)` whenever a range starts admitting work; returns the unsubscribe function. */
  onActivated(listener: (range: number) => void): () => void {
    this.#activated.add(listener);
    return () => void this.#activated.delete(listener);
  }

  /**
   * A ticket to reconcile `object` now, or undefined when its range is not active here (the replica that
   * holds it reconciles it). The ticket's signal aborts when the claim ends; `run` fences the reconcile's
   * writes by the claim; `end` must be called when it returns.
   */
  begin(object: DeepReadonly<KubeObject>): ShardTicket | undefined {
    const range = this.rangeOf(object);
    const now = this.#clock.now();
    if (range === undefined || !admits(this.#state, range, now)) return undefined;
    const epoch = writableEpoch(this.#state, range, now)!;
    const aborter = this.#aborters[range] ??= new AbortController();
    this.#inflight[range]!++;
    const { namespace, name } = object.metadata;
    const key = namespace ? `${namespace}/${name}` : name;
    // The audit (tests/e2e/sharded_replicas_test.ts) reads these: who reconciled which key when.
    this.#logger.debug("Reconcile started", { key, range, epoch });
    let open = true;
    const fence: FenceTicket = {
      range,
      get open() {
        return open;
      },
      check: () => {
        if (writableEpoch(this.#state, range, this.#clock.now()) === epoch) return;
        throw new NotShardOwnerError(
          `Write refused: range ${range} of shard group "${this.#o.group}" is no longer held by this replica ` +
            `under the claim the reconcile started with`,
          range,
        );
      },
    };
    return {
      range,
      signal: aborter.signal,
      run: (fn) => this.fence.run(fence, fn),
      end: () => {
        if (!open) return;
        open = false;
        this.#logger.debug("Reconcile ended", { key, range, epoch });
        if (--this.#inflight[range]! === 0 && this.#state.ranges[range]?.kind === "draining") this.#tickNow();
      },
    };
  }

  /**
   * Checks the Lease RBAC and detects whether the server filters by shard selector (a list of the group's
   * namespace's Leases). Informers started after this list the right share from the start; `run` calls it
   * when nobody did.
   * @throws {ShardConfigError} missing RBAC, a rejected selector, or `selector: "server"` unsupported.
   */
  async prepare(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#prepared) return;
    const { signal } = options;
    await this.fence.load();
    if (this.#o.checkPermissions) await checkLeasePermissions(this.#client, this.#o.namespace, signal);
    let support: SelectorSupport = "client";
    if (this.#o.selector !== "client") {
      const namespace = this.#o.namespace;
      support = await probeShardSelector(
        this.#client,
        LEASES,
        this.#o.key,
        signal ? { signal, namespace } : { namespace },
      );
      if (this.#o.selector === "server" && support !== "server") {
        throw new ShardConfigError(
          "The API server ignores shard selectors (feature gate ShardedListAndWatch off, or a release " +
            "before v1.36), and server-side filtering was required",
          "selectorUnsupported",
        );
      }
    }
    this.#support = support;
    this.#logger.info("Shard selector support", {
      support,
      ranges: this.#o.ranges,
      key: this.#o.key,
      identity: this.identity,
    });
    for (const p of this.#partitions.values()) p.update(this.#state.scopeVersion, [], support === "server");
    this.#prepared = true;
  }

  /**
   * Takes part in the group until `signal` aborts, then drains and releases every range and the
   * membership (bounded by the drain timeout, the abort grace and the renew deadline) and resolves.
   * @throws {ShardConfigError} when the configuration is refused (then nothing of ours is claimed any more).
   */
  async run(options: { signal: AbortSignal }): Promise<void> {
    const { signal } = options;
    await this.prepare({ signal });
    const o = this.#o;
    let stopBy: number | undefined;
    let listing: Promise<void> | undefined;
    const wake = () => this.#wake?.();
    signal.addEventListener("abort", wake, { once: true });
    try {
      for (;;) {
        const now = this.#clock.now();
        if (signal.aborted && stopBy === undefined) {
          stopBy = now + o.drainTimeoutMs + o.abortGraceMs + o.renewDeadlineMs;
          this.#dispatch({ kind: "stop", now });
        }
        this.#dispatch({ kind: "tick", now, inflight: this.#inflight });
        const phase = this.#state.phase;
        if (phase.kind === "failed") throw new ShardConfigError(phase.message, "mismatch");
        if (phase.kind === "stopped") return;
        if (stopBy !== undefined && now >= stopBy) {
          this.#logger.warn("Shard group left before every claim was released; the rest expire", {});
          return;
        }
        // The list runs beside the ticks: a slow list must not space renewals out past their deadline.
        listing ??= this.#observe().finally(() => listing = undefined);
        await this.#sleep(o.retryPeriodMs * (1 + this.#random() * 0.2));
      }
    } finally {
      signal.removeEventListener("abort", wake);
      await listing;
      for (const a of this.#aborters) a?.abort(new NotShardOwnerError("Shard coordinator stopped"));
    }
  }

  /** One list of the group's Leases, never older than our own answered writes. */
  async #observe(): Promise<void> {
    const sentAt = this.#clock.now();
    let list: ObjectList<Lease>;
    try {
      list = await this.#withTimeout((signal) =>
        this.#client.list(LEASES, {
          namespace: this.#o.namespace,
          labelSelector: `${GROUP_LABEL}=${this.#o.group}`,
          signal,
        })
      );
    } catch (error) {
      this.#logger.warn("Cannot list the shard group's Leases", { error: String(error) });
      return;
    }
    const byName = new Map(list.items.map((l) => [l.metadata.name ?? "", l]));
    for (const [name, at] of this.#writtenAt) {
      const mine = this.#leases.get(name);
      if (at > sentAt && mine) byName.set(name, mine);
    }
    for (const [name, lease] of byName) {
      if (!((this.#writtenAt.get(name) ?? -Infinity) > sentAt)) this.#leases.set(name, lease);
    }
    const leases = [...byName.values()].map(viewOf).filter((v): v is LeaseView => v !== undefined);
    this.#dispatch({ kind: "observed", now: this.#clock.now(), leases });
  }

  #dispatch(input: ShardInput): void {
    const before = this.#state;
    const t = step(before, input);
    this.#state = t.state;
    for (const notice of t.notices) this.#logger.info(notice, {});
    this.#logTransitions(before.ranges, t.state.ranges);
    for (const action of t.actions) this.#perform(action);
  }

  /** Ranges that became active or stopped being writable: the lines the audit reads. */
  #logTransitions(before: readonly RangePhase[], after: readonly RangePhase[]): void {
    after.forEach((r, range) => {
      const b = before[range]!;
      if (r.kind === "active" && b.kind !== "active" && b.kind !== "draining") {
        this.#logger.info("Range active", { range, epoch: r.epoch, untilMs: r.until });
      }
      if ((b.kind === "active" || b.kind === "draining") && r.kind !== "active" && r.kind !== "draining") {
        this.#logger.info("Range given up", { range, epoch: b.epoch, untilMs: b.until, how: r.kind });
      }
    });
  }

  #perform(action: ShardAction): void {
    switch (action.kind) {
      case "write":
        void this.#write(action.op, action.name, action.index);
        return;
      case "rescope":
        for (const p of this.#partitions.values()) {
          p.update(action.version, action.ranges, this.#support === "server");
        }
        this.#checkSynced();
        return;
      case "activate":
        for (const listener of this.#activated) {
          try {
            listener(action.index);
          } catch (error) {
            this.#logger.error("Range activation listener failed", { error: String(error) });
          }
        }
        return;
      case "abort": {
        const aborter = this.#aborters[action.index];
        this.#aborters[action.index] = undefined;
        aborter?.abort(new NotShardOwnerError(`Range ${action.index}: ${action.reason}`, action.index));
        return;
      }
    }
  }

  /** Tells the protocol once every attached partition listed the newest scope. */
  #checkSynced(): void {
    const version = this.#state.scopeVersion;
    const attached = [...this.#partitions.values()].filter((p) => p.attached);
    if (attached.every((p) => p.syncedVersion >= version)) this.#dispatch({ kind: "synced", version });
  }

  async #write(op: WriteOp, name: string, index: number | undefined): Promise<void> {
    const startedAt = this.#clock.now();
    const { create, lease } = leaseFor(op, name, this.#leases.get(name), this.#writer, startedAt, index);
    try {
      const opts = { namespace: this.#o.namespace };
      const stored = await this.#withTimeout((signal) =>
        create
          ? this.#client.create(LEASES, lease, { ...opts, signal })
          : this.#client.replace(LEASES, lease, { ...opts, signal })
      );
      this.#leases.set(name, stored);
      this.#writtenAt.set(name, this.#clock.now());
      this.#dispatch({ kind: "written", op, name, startedAt, now: this.#clock.now(), lease: viewOf(stored) });
    } catch (error) {
      const conflict = error instanceof ApiError && (error.code === 409 || error.code === 404);
      if (!conflict) this.#logger.warn("Shard Lease write failed", { op, lease: name, error: String(error) });
      this.#dispatch({ kind: "writeFailed", op, name, conflict });
    }
  }

  async #withTimeout<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const ctl = new AbortController();
    const timer = this.#clock.setTimer(
      () => ctl.abort(new DOMException("Shard Lease request timed out", "TimeoutError")),
      this.#o.renewDeadlineMs,
    );
    try {
      return await fn(ctl.signal);
    } finally {
      timer.cancel();
    }
  }

  #tickNow(): void {
    this.#dispatch({ kind: "tick", now: this.#clock.now(), inflight: this.#inflight });
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        timer.cancel();
        this.#wake = undefined;
        resolve();
      };
      const timer: Timer = this.#clock.setTimer(done, ms);
      this.#wake = done;
    });
  }
}
