/**
 * Replicas of the pure shard protocol racing over one simulated Lease store, in simulated time: writes
 * and lists take random latency (compare-and-swap at the moment they reach the "server"), replicas
 * pause (SIGSTOP: nothing of theirs runs, their clock runs on), die, join and stop gracefully, and
 * their clocks drift. Reconciles start while a range admits work and attempt writes that pass only
 * through the fence (`writableEpoch`). Everything is recorded for the invariants the tests assert.
 * @module
 */
import type { Lease } from "../../lib/resources/coordination_v1.ts";
import { encodeGroupConfig, GroupLeaseNames } from "../../lib/shard/group_leases.ts";
import { leaseFor, type LeaseWriter, viewOf } from "../../lib/shard/lease_writes.ts";
import {
  admits,
  initialState,
  type LeaseView,
  type ShardAction,
  type ShardInput,
  type ShardProtocolConfig,
  type ShardState,
  step,
  writableEpoch,
} from "../../lib/shard/shard_state.ts";

/** Timing of every replica. */
export const TIMING = {
  leaseMs: 15_000,
  renewDeadlineMs: 10_000,
  retryMs: 2_000,
  drainTimeoutMs: 3_000,
  abortGraceMs: 2_000,
};

/** A window during which a replica could write for a range (global time). */
export interface Interval {
  readonly replica: string;
  readonly range: number;
  readonly start: number;
  end: number;
  /** Closed by its deadline passing (the replica could not renew), not by a transition of its own. */
  byDeadline?: boolean;
}

/** A write the fence let out: when it left and when it reached the server. */
export interface FencedWrite {
  readonly replica: string;
  readonly range: number;
  readonly sentAt: number;
  readonly arrivedAt: number;
}

interface Reconcile {
  readonly range: number;
  readonly epoch: number;
  end: number;
  readonly stuck: boolean;
  readonly record: ReconcileWindow;
}

/** One reconcile: from its start until it returned (global time). */
export interface ReconcileWindow {
  readonly replica: string;
  readonly range: number;
  readonly start: number;
  end: number;
  /** Its signal was aborted (drain timeout or a lost claim). */
  aborted?: boolean;
}

class Replica {
  state: ShardState;
  leases = new Map<string, Lease>();
  /** Own clock when our last write to a Lease was answered. */
  writtenAt = new Map<string, number>();
  pausedUntil = 0;
  dead = false;
  stopped = false;
  reconciles = new Set<Reconcile>();
  open = new Map<number, Interval>();
  untilGlobal = new Map<number, number>();
  readonly writer: LeaseWriter;

  constructor(
    readonly id: string,
    config: ShardProtocolConfig,
    readonly drift: number,
    readonly offset: number,
  ) {
    this.state = initialState(config);
    this.writer = {
      identity: id,
      namespace: "ns",
      group: "g",
      groupConfig: config.groupConfig,
      leaseMs: config.leaseMs,
    };
  }

  now(t: number): number {
    return this.offset + t * (1 + this.drift);
  }

  globalOf(own: number): number {
    return (own - this.offset) / (1 + this.drift);
  }

  inflight(ranges: number): number[] {
    const counts = new Array(ranges).fill(0);
    for (const r of this.reconciles) counts[r.range]++;
    return counts;
  }
}

/** The simulated world. */
export class Simulation {
  t = 0;
  readonly replicas = new Map<string, Replica>();
  readonly store = new Map<string, Lease>();
  readonly intervals: Interval[] = [];
  readonly writes: FencedWrite[] = [];
  readonly reconciles: ReconcileWindow[] = [];
  readonly failures: string[] = [];
  #rv = 0;
  #queue: { at: number; seq: number; replica?: string; fn: () => void }[] = [];
  #seq = 0;
  readonly #names = new GroupLeaseNames("g");

  constructor(
    readonly random: () => number,
    readonly ranges = 16,
    readonly maxLatencyMs = 800,
    readonly stuckRate = 0.002,
  ) {}

  /** A replica joins now; `config` overrides the range count or key it was started with. */
  join(id: string, groupConfig = encodeGroupConfig({ ranges: this.ranges, key: "uid" })): void {
    const config: ShardProtocolConfig = {
      ...TIMING,
      identity: id,
      memberName: this.#names.member(id),
      configName: this.#names.config,
      rangeName: (i) => this.#names.range(i),
      groupConfig,
      ranges: this.ranges,
    };
    const drift = (this.random() - 0.5) * 0.02;
    const replica = new Replica(id, config, drift, this.random() * 1e9);
    this.replicas.set(id, replica);
    this.#period(replica);
    this.#reconcileLoop(replica);
  }

  /** SIGSTOP for `ms`, then SIGCONT. */
  pause(id: string, ms: number): void {
    this.replicas.get(id)!.pausedUntil = this.t + ms;
  }

  /** SIGKILL: nothing of it runs again, nothing is released. */
  kill(id: string): void {
    const r = this.replicas.get(id)!;
    r.dead = true;
    this.#closeAll(r);
  }

  /** SIGTERM: the replica drains and releases everything. */
  stop(id: string): void {
    const r = this.replicas.get(id)!;
    this.#at(this.t, r, () => this.#dispatch(r, { kind: "stop", now: r.now(this.t) }));
  }

  /** Runs the world until `until` (global ms). */
  run(until: number): void {
    while (this.#queue.length > 0) {
      this.#queue.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.#queue[0]!;
      if (next.at > until) break;
      this.#queue.shift();
      const r = next.replica === undefined ? undefined : this.replicas.get(next.replica);
      if (r?.dead) continue;
      if (r && r.pausedUntil > next.at) {
        // Paused: it runs when the process is continued, in the order it was due.
        this.#queue.push({ ...next, at: r.pausedUntil, seq: next.seq });
        continue;
      }
      this.t = next.at;
      next.fn();
      this.#track();
    }
    this.t = until;
    this.#track();
  }

  /** The replicas alive, running and unpaused. */
  live(): Replica[] {
    return [...this.replicas.values()].filter((r) => !r.dead && !r.stopped && r.pausedUntil <= this.t);
  }

  /** Which replica has range i active now (all of them, to detect doubles). */
  activeOwners(): string[][] {
    return Array.from(
      { length: this.ranges },
      (_, i) =>
        [...this.replicas.values()].filter((r) => !r.dead && admits(r.state, i, r.now(this.t))).map((r) =>
          r.id
        ),
    );
  }

  #at(at: number, replica: Replica | undefined, fn: () => void): void {
    this.#queue.push({ at, seq: this.#seq++, ...(replica ? { replica: replica.id } : {}), fn });
  }

  #latency(): number {
    return 5 + this.random() * this.maxLatencyMs;
  }

  #period(r: Replica): void {
    const tick = () => {
      if (r.stopped) return;
      this.#dispatch(r, { kind: "tick", now: r.now(this.t), inflight: r.inflight(this.ranges) });
      this.#list(r);
      this.#at(this.t + TIMING.retryMs * (1 + this.random() * 0.2), r, tick);
    };
    this.#at(this.t + this.random() * 100, r, tick);
  }

  #list(r: Replica): void {
    const sentAt = r.now(this.t);
    this.#at(this.t + this.#latency(), undefined, () => {
      const snapshot = [...this.store.values()].map((l) => structuredClone(l));
      this.#at(this.t + this.#latency(), r, () => {
        // Never older than our own answered writes: those Leases are replaced by our copy.
        const byName = new Map(snapshot.map((l) => [l.metadata.name!, l]));
        for (const [name, at] of r.writtenAt) {
          const mine = r.leases.get(name);
          if (at > sentAt && mine) byName.set(name, mine);
        }
        for (const [name, lease] of byName) {
          if (!(r.writtenAt.get(name)! > sentAt)) r.leases.set(name, lease);
        }
        const leases = [...byName.values()].map(viewOf).filter((v): v is LeaseView => v !== undefined);
        this.#dispatch(r, { kind: "observed", now: r.now(this.t), leases });
      });
    });
  }

  #dispatch(r: Replica, input: ShardInput): void {
    if (r.dead) return;
    const { state, actions } = step(r.state, input);
    r.state = state;
    if (state.phase.kind === "failed") this.failures.push(`${r.id}: ${state.phase.message}`);
    if (state.phase.kind === "stopped" || state.phase.kind === "failed") r.stopped = true;
    for (const a of actions) this.#perform(r, a);
  }

  #perform(r: Replica, a: ShardAction): void {
    switch (a.kind) {
      case "write":
        return this.#write(r, a);
      case "rescope":
        // The caches relist at this scope and report when they are through.
        this.#at(
          this.t + 50 + this.random() * 500,
          r,
          () => this.#dispatch(r, { kind: "synced", version: a.version }),
        );
        return;
      case "activate":
        return;
      case "abort":
        for (const rec of r.reconciles) {
          if (rec.range !== a.index) continue;
          rec.record.aborted = true;
          if (!rec.stuck) this.#finish(r, rec);
        }
        return;
    }
  }

  #write(r: Replica, a: Extract<ShardAction, { kind: "write" }>): void {
    const startedAt = r.now(this.t);
    const { create, lease } = leaseFor(a.op, a.name, r.leases.get(a.name), r.writer, startedAt, a.index);
    this.#at(this.t + this.#latency(), undefined, () => {
      const old = this.store.get(a.name);
      let result: Lease | undefined;
      if (create ? !old : old && old.metadata.resourceVersion === lease.metadata.resourceVersion) {
        result = structuredClone(lease);
        result.metadata.resourceVersion = String(++this.#rv);
        this.store.set(a.name, result);
      }
      this.#at(this.t + this.#latency(), r, () => {
        if (result) {
          r.leases.set(a.name, structuredClone(result));
          r.writtenAt.set(a.name, r.now(this.t));
          this.#dispatch(r, {
            kind: "written",
            op: a.op,
            name: a.name,
            startedAt,
            now: r.now(this.t),
            lease: viewOf(result),
          });
        } else {
          this.#dispatch(r, { kind: "writeFailed", op: a.op, name: a.name, conflict: true });
        }
      });
    });
  }

  /** Every 100 ms: start reconciles where work is admitted; running ones try to write through the fence. */
  #reconcileLoop(r: Replica): void {
    const loop = () => {
      if (r.stopped) return;
      const now = r.now(this.t);
      for (let i = 0; i < this.ranges; i++) {
        if (admits(r.state, i, now) && this.random() < 0.3) {
          const stuck = this.random() < this.stuckRate;
          const record: ReconcileWindow = { replica: r.id, range: i, start: this.t, end: Infinity };
          this.reconciles.push(record);
          const rec: Reconcile = {
            record,
            range: i,
            epoch: writableEpoch(r.state, i, now)!,
            end: this.t + (stuck ? 60_000 : this.random() * 1500),
            stuck,
          };
          r.reconciles.add(rec);
        }
      }
      for (const rec of [...r.reconciles]) {
        if (this.random() < 0.5) this.#attemptWrite(r, rec);
        if (rec.end <= this.t) this.#finish(r, rec);
      }
      this.#at(this.t + 100, r, loop);
    };
    this.#at(this.t + 100, r, loop);
  }

  #attemptWrite(r: Replica, rec: Reconcile): void {
    if (writableEpoch(r.state, rec.range, r.now(this.t)) !== rec.epoch) return;
    const write = { replica: r.id, range: rec.range, sentAt: this.t, arrivedAt: this.t + this.#latency() };
    this.writes.push(write);
  }

  #finish(r: Replica, rec: Reconcile): void {
    if (!r.reconciles.delete(rec)) return;
    rec.record.end = this.t;
    // The driver ticks at once when a draining range's last reconcile returns.
    const drained = r.state.ranges[rec.range]?.kind === "draining" &&
      ![...r.reconciles].some((x) => x.range === rec.range);
    if (drained) this.#dispatch(r, { kind: "tick", now: r.now(this.t), inflight: r.inflight(this.ranges) });
  }

  #closeAll(r: Replica): void {
    for (const [i, interval] of r.open) {
      interval.end = Math.min(this.t, r.untilGlobal.get(i) ?? this.t);
      interval.byDeadline = true;
      r.open.delete(i);
    }
  }

  /** Opens and closes each replica's writable windows (an open window ends at its deadline at the latest). */
  #track(): void {
    for (const r of this.replicas.values()) {
      if (r.dead) continue;
      for (let i = 0; i < this.ranges; i++) {
        const phase = r.state.ranges[i]!;
        const writable = (phase.kind === "active" || phase.kind === "draining") &&
          r.now(this.t) < phase.until;
        const open = r.open.get(i);
        if (writable) {
          const untilGlobal = r.globalOf(phase.until);
          if (!open || open.end <= this.t) {
            if (open) {
              open.byDeadline = true;
              r.open.delete(i);
            }
            const interval: Interval = { replica: r.id, range: i, start: this.t, end: untilGlobal };
            this.intervals.push(interval);
            r.open.set(i, interval);
          } else {
            open.end = untilGlobal;
          }
          r.untilGlobal.set(i, untilGlobal);
        } else if (open) {
          open.byDeadline = open.end <= this.t;
          open.end = Math.min(open.end, this.t);
          r.open.delete(i);
        }
      }
    }
  }
}
