/**
 * The shard protocol as data, in one file: a replica's phases, the inputs fed to it
 * ({@linkcode ShardInput}), the actions it asks for ({@linkcode ShardAction}) and one pure transition
 * function ({@linkcode step}). The driver (`shard_coordinator.ts`) does all I/O and timing; everything
 * decided here is tested transition by transition (tests/shard/shard_state_test.ts) and by simulating
 * replicas that pause, die and race over one Lease store (tests/shard/shard_simulation_test.ts).
 *
 * The invariant, argued in docs/sharding.md: a replica admits work for a range, and lets writes for it
 * out, only while its claim on the range's Lease is valid by its own clock — until the renew deadline
 * counted from when its last successful claim or renewal STARTED; another replica claims a range only
 * when its Lease is released, or unchanged for the holder's lease duration as measured on the
 * claimant's clock since it first saw that record. The lease duration exceeds the renew deadline, so
 * on clocks that run at similar rates the two windows never meet.
 * @module
 */
import { assertNever } from "../_internal/assert_never.ts";
import { assignRanges } from "./assignment.ts";
import { describeGroupConfig, type LeaseRole } from "./group_leases.ts";

/** Settings of one replica; equal on every replica except `identity` and the member name. */
export interface ShardProtocolConfig {
  /** This replica's identity, written to `spec.holderIdentity`. */
  readonly identity: string;
  /** Name of this replica's member Lease. */
  readonly memberName: string;
  /** Name of the group's config Lease. */
  readonly configName: string;
  /** Name of range i's claim Lease. */
  readonly rangeName: (index: number) => string;
  /** The group configuration this replica was started with, encoded (`ranges=16,key=uid`). */
  readonly groupConfig: string;
  /** Number of ranges. */
  readonly ranges: number;
  /** Lease duration written on our Leases: how long others wait after our last renewal. */
  readonly leaseMs: number;
  /** A claim (and our membership) ends this long after the start of its last successful write. */
  readonly renewDeadlineMs: number;
  /** How long a range that must move waits for its in-flight reconciles before aborting them. */
  readonly drainTimeoutMs: number;
  /** After aborting them, how long more before giving the claim up without a release. */
  readonly abortGraceMs: number;
}

/** One Lease of the group as observed (the driver turns API Leases into these). */
export interface LeaseView {
  /** Lease name. */
  readonly name: string;
  /** Its role, from its label. */
  readonly role: LeaseRole;
  /** `spec.holderIdentity`; "" when released. */
  readonly holder: string;
  /** `spec.leaseDurationSeconds` in ms. */
  readonly durationMs: number;
  /** Holder, times and duration joined: a change of this string is a renewal or a new holder. */
  readonly record: string;
  /** Its config annotation. */
  readonly config: string;
}

/** A Lease as this replica has seen it: `at` is OUR clock when its record last changed (or first seen). */
export interface Sighting extends LeaseView {
  /** Our clock when `record` was first seen with this value. */
  readonly at: number;
}

/** Where the replica is in its group. */
export type GroupPhase =
  /** Checking the group's config Lease and registering; `conflictSince` while another config is there. */
  | { readonly kind: "joining"; readonly conflictSince?: number }
  /** A member: claims, renews, drains and releases ranges. */
  | { readonly kind: "running" }
  /**
   * Shutting down: the membership is handed back first (`memberReleased` once written), so nobody assigns
   * us ranges any more; every range drains and is released.
   */
  | { readonly kind: "stopping"; readonly memberReleased: boolean }
  /** Done; nothing of ours remains claimed. */
  | { readonly kind: "stopped" }
  /** Refused: a configuration mismatch or an identity collision; `message` names it. */
  | { readonly kind: "failed"; readonly message: string };

/** Where one range is, from this replica's point of view. `until`: the claim's local deadline. */
export type RangePhase =
  /** Not ours. */
  | { readonly kind: "idle" }
  /** A claim write is in flight. */
  | { readonly kind: "claiming" }
  /** Claimed (`epoch` numbers the claim); caches must sync at scope `version` before work starts. */
  | { readonly kind: "syncing"; readonly until: number; readonly epoch: number; readonly version: number }
  /** Claimed and caches synced: work for it is admitted. */
  | { readonly kind: "active"; readonly until: number; readonly epoch: number }
  /** Must move: no new work; waiting for in-flight work since `since`, aborted it when `aborted`. */
  | {
    readonly kind: "draining";
    readonly until: number;
    readonly epoch: number;
    readonly since: number;
    readonly aborted: boolean;
  }
  /** In-flight work is over; the release write is in flight. Nothing may be written for it. */
  | { readonly kind: "releasing" };

/** The whole state of one replica. */
export interface ShardState {
  /** Settings. */
  readonly config: ShardProtocolConfig;
  /** The group phase. */
  readonly phase: GroupPhase;
  /** Every Lease of the group as last seen. */
  readonly seen: ReadonlyMap<string, Sighting>;
  /** Local deadline of our membership, undefined while not registered. */
  readonly memberUntil: number | undefined;
  /** Per range. */
  readonly ranges: readonly RangePhase[];
  /** Lease names with a write of ours in flight (never two at once on one Lease). */
  readonly pending: ReadonlySet<string>;
  /** Claims made so far; numbers each claim (its epoch). */
  readonly claims: number;
  /** Increases whenever the set of ranges to cache changes. */
  readonly scopeVersion: number;
  /** The newest scope version every sharded cache has fully listed. */
  readonly syncedVersion: number;
}

/** Writes the protocol asks for; the driver builds the Lease from the last one it saw. */
export type WriteOp =
  | "createConfig"
  | "replaceConfig"
  | "member"
  | "releaseMember"
  | "claim"
  | "renew"
  | "release";

/** Inputs: observations, write results, ticks with the in-flight counts, cache syncs, shutdown. */
export type ShardInput =
  /** Every Lease of the group, read at `now` (a list with the group's label selector). */
  | { readonly kind: "observed"; readonly now: number; readonly leases: readonly LeaseView[] }
  /** A write succeeded; `startedAt` is when it was sent, `lease` what the server stored. */
  | {
    readonly kind: "written";
    readonly op: WriteOp;
    readonly name: string;
    readonly startedAt: number;
    readonly now: number;
    readonly lease: LeaseView | undefined;
  }
  /** A write failed; `conflict` when the Lease changed under us (409) or is gone (404). */
  | { readonly kind: "writeFailed"; readonly op: WriteOp; readonly name: string; readonly conflict: boolean }
  /** Time passes; `inflight[i]` is the number of reconciles running for range i. */
  | { readonly kind: "tick"; readonly now: number; readonly inflight: readonly number[] }
  /** Every sharded cache has fully listed at scope `version`. */
  | { readonly kind: "synced"; readonly version: number }
  /** Shut down: drain and release everything. */
  | { readonly kind: "stop"; readonly now: number };

/** What the driver must do. */
export type ShardAction =
  /** Write Lease `name` (`index` for range Leases). */
  | { readonly kind: "write"; readonly op: WriteOp; readonly name: string; readonly index?: number }
  /** Caches must hold exactly `ranges` from now on; tell `synced` once they listed at `version`. */
  | { readonly kind: "rescope"; readonly version: number; readonly ranges: readonly number[] }
  /** Range `index` admits work: enqueue its keys. */
  | { readonly kind: "activate"; readonly index: number }
  /** Abort the in-flight reconciles of range `index` (`lost`: the claim ended; else drain timed out). */
  | { readonly kind: "abort"; readonly index: number; readonly reason: "lost" | "drainTimeout" };

/** The outcome of one {@linkcode step}. */
export interface ShardTransition {
  /** The next state. */
  readonly state: ShardState;
  /** What to do, in order. */
  readonly actions: readonly ShardAction[];
  /** Things worth an info log line. */
  readonly notices: readonly string[];
}

/** The state a replica starts in. */
export function initialState(config: ShardProtocolConfig): ShardState {
  return {
    config,
    phase: { kind: "joining" },
    seen: new Map(),
    memberUntil: undefined,
    ranges: Array.from({ length: config.ranges }, () => ({ kind: "idle" as const })),
    pending: new Set(),
    claims: 0,
    scopeVersion: 0,
    syncedVersion: 0,
  };
}

/**
 * The epoch of our claim on range `index` when a write for it may leave now: the range is active or
 * draining and `now` is before its deadline. Undefined otherwise. Pure.
 */
export function writableEpoch(state: ShardState, index: number, now: number): number | undefined {
  if (state.phase.kind !== "running" && state.phase.kind !== "stopping") return undefined;
  const r = state.ranges[index];
  if (!r || (r.kind !== "active" && r.kind !== "draining")) return undefined;
  return now < r.until ? r.epoch : undefined;
}

/** True when new work for range `index` is admitted: active and before its deadline. Pure. */
export function admits(state: ShardState, index: number, now: number): boolean {
  if (state.phase.kind !== "running") return false;
  const r = state.ranges[index];
  return r?.kind === "active" && now < r.until;
}

/** True while our membership is valid: registered and before its deadline. Pure. */
export function memberValid(state: ShardState, now: number): boolean {
  const p = state.phase.kind;
  return (p === "running" || p === "stopping") && state.memberUntil !== undefined && now < state.memberUntil;
}

/** The ranges caches must hold: those claimed, being synced, active or draining. */
export function cachedRanges(state: ShardState): number[] {
  const out: number[] = [];
  state.ranges.forEach((r, i) => {
    if (r.kind === "syncing" || r.kind === "active" || r.kind === "draining") out.push(i);
  });
  return out;
}

/** The transition function, and the only entry point. Pure: no I/O, no clock, no randomness. */
export function step(state: ShardState, input: ShardInput): ShardTransition {
  const t = new Draft(state);
  if (state.phase.kind === "stopped" || state.phase.kind === "failed") return t.done();
  switch (input.kind) {
    case "observed":
      t.observe(input.leases, input.now);
      t.checkGroup(input.now);
      if (t.phase.kind === "running") t.plan(input.now);
      break;
    case "written":
      t.pending.delete(input.name);
      if (input.lease) t.sight(input.lease, input.now);
      t.written(input);
      break;
    case "writeFailed":
      t.pending.delete(input.name);
      t.writeFailed(input.op, input.name, input.conflict);
      break;
    case "tick":
      t.tick(input.now, input.inflight);
      break;
    case "synced":
      t.syncedVersion = Math.max(t.syncedVersion, input.version);
      t.activateSynced();
      break;
    case "stop":
      t.stop(input.now);
      break;
    default:
      return assertNever(input, "shard input");
  }
  return t.done();
}

/** A mutable copy of the state for one transition; `done()` freezes it back. */
class Draft {
  readonly config: ShardProtocolConfig;
  phase: GroupPhase;
  seen: Map<string, Sighting>;
  memberUntil: number | undefined;
  ranges: RangePhase[];
  pending: Set<string>;
  claims: number;
  scopeVersion: number;
  syncedVersion: number;
  readonly actions: ShardAction[] = [];
  readonly notices: string[] = [];
  #rescoped = false;

  constructor(s: ShardState) {
    this.config = s.config;
    this.phase = s.phase;
    this.seen = new Map(s.seen);
    this.memberUntil = s.memberUntil;
    this.ranges = [...s.ranges];
    this.pending = new Set(s.pending);
    this.claims = s.claims;
    this.scopeVersion = s.scopeVersion;
    this.syncedVersion = s.syncedVersion;
  }

  done(): ShardTransition {
    if (this.phase.kind === "failed") {
      // Refused: whatever we held is given up at once (unreleased; it lapses for the others).
      this.ranges.forEach((r, i) => {
        if (r.kind === "idle") return;
        this.ranges[i] = { kind: "idle" };
        this.actions.push({ kind: "abort", index: i, reason: "lost" });
        this.#rescoped = true;
      });
    }
    if (this.#rescoped) {
      this.scopeVersion++;
      this.actions.push({ kind: "rescope", version: this.scopeVersion, ranges: this.#cached() });
      // Ranges claimed in this transition wait for the caches of this very scope.
      this.ranges = this.ranges.map((r) =>
        r.kind === "syncing" && r.version < 0 ? { ...r, version: this.scopeVersion } : r
      );
    }
    const state: ShardState = {
      config: this.config,
      phase: this.phase,
      seen: this.seen,
      memberUntil: this.memberUntil,
      ranges: this.ranges,
      pending: this.pending,
      claims: this.claims,
      scopeVersion: this.scopeVersion,
      syncedVersion: this.syncedVersion,
    };
    return { state, actions: this.actions, notices: this.notices };
  }

  #cached(): number[] {
    const out: number[] = [];
    this.ranges.forEach((r, i) => {
      if (r.kind === "syncing" || r.kind === "active" || r.kind === "draining") out.push(i);
    });
    return out;
  }

  /** Records what the list showed; a Lease the list no longer has is forgotten. */
  observe(leases: readonly LeaseView[], now: number): void {
    const names = new Set(leases.map((l) => l.name));
    for (const name of [...this.seen.keys()]) if (!names.has(name)) this.seen.delete(name);
    for (const lease of leases) this.sight(lease, now);
  }

  sight(lease: LeaseView, now: number): void {
    const old = this.seen.get(lease.name);
    this.seen.set(lease.name, { ...lease, at: old && old.record === lease.record ? old.at : now });
  }

  /** Expired by our clock: released, or unchanged for its holder's lease duration since we saw it change. */
  #expired(s: Sighting, now: number): boolean {
    return s.holder === "" || now >= s.at + s.durationMs;
  }

  /** Members whose Lease is alive by our clock, ourselves included while our membership is valid. */
  #liveMembers(now: number): string[] {
    const out: string[] = [];
    for (const s of this.seen.values()) {
      if (s.role !== "member" || s.holder === "" || s.config !== this.config.groupConfig) continue;
      if (s.holder === this.config.identity) continue;
      if (!this.#expired(s, now)) out.push(s.holder);
    }
    if (this.phase.kind === "running" && this.memberUntil !== undefined && now < this.memberUntil) {
      out.push(this.config.identity);
    }
    return out;
  }

  #write(op: WriteOp, name: string, index?: number): void {
    this.pending.add(name);
    this.actions.push({ kind: "write", op, name, ...(index === undefined ? {} : { index }) });
  }

  /** The config Lease decides: join when it matches, fail when a live member runs another configuration. */
  checkGroup(now: number): void {
    const c = this.config;
    const cfg = this.seen.get(c.configName);
    if (this.pending.has(c.configName)) return;
    if (!cfg) {
      this.#write("createConfig", c.configName);
      return;
    }
    if (cfg.config !== c.groupConfig) {
      this.#mismatch(cfg, now);
      return;
    }
    if (this.phase.kind === "joining" && this.phase.conflictSince !== undefined) {
      this.phase = { kind: "joining" };
    }
    if (this.phase.kind !== "joining" && this.phase.kind !== "running") return;
    // Registering (again, after a lapse): never over another live replica of the same name.
    if (this.memberUntil !== undefined || this.pending.has(c.memberName)) return;
    const mine = this.seen.get(c.memberName);
    if (mine && mine.holder !== "" && mine.holder !== c.identity && !this.#expired(mine, now)) {
      this.phase = {
        kind: "failed",
        message: `Member Lease "${c.memberName}" is held by "${mine.holder}": two replicas share an identity`,
      };
      return;
    }
    this.#write("member", c.memberName);
  }

  #mismatch(cfg: Sighting, now: number): void {
    const c = this.config;
    const theirs = describeGroupConfig(cfg.config);
    const ours = describeGroupConfig(c.groupConfig);
    if (this.phase.kind !== "joining") {
      this.phase = {
        kind: "failed",
        message: `Shard group "${c.configName}" was reconfigured to ${theirs} while this replica ran with ` +
          `${ours}; it stops so that no range is served under two configurations`,
      };
      return;
    }
    // Another configuration may be replaced only once none of its Leases (members and claims) is alive:
    // each unchanged for its lease duration, so every claim made under it has passed its deadline.
    const since = this.phase.conflictSince ?? now;
    const held = (s: Sighting) => s.role !== "config" && s.holder !== "" && s.holder !== c.identity;
    const live = [...this.seen.values()].find((s) => held(s) && s.at > since && !this.#expired(s, now));
    if (live) {
      this.phase = {
        kind: "failed",
        message:
          `Shard group "${c.configName}" runs ${theirs} (member "${live.holder}" is alive), but this ` +
          `replica was started with ${ours}: every replica of a group needs the same range count and key`,
      };
      return;
    }
    const undecided = [...this.seen.values()].some((s) => held(s) && !this.#expired(s, now));
    if (undecided) {
      if (this.phase.conflictSince === undefined) {
        this.notices.push(
          `Shard group runs ${theirs}, this replica ${ours}: waiting to see whether its members live`,
        );
      }
      this.phase = { kind: "joining", conflictSince: since };
      return;
    }
    this.notices.push(
      `Shard group's configuration (${theirs}) has no live member; replacing it with ${ours}`,
    );
    this.#write("replaceConfig", c.configName);
  }

  /** Running: claim what the assignment gives us and we may take, drain what must move. */
  plan(now: number): void {
    const c = this.config;
    // A claim we believe we hold that the Lease gives to someone else is lost (the driver never hands us
    // a list older than our own last write to a Lease).
    for (let i = 0; i < c.ranges; i++) {
      const s = this.seen.get(c.rangeName(i));
      if (s && s.holder !== c.identity) this.#lose(i, `its Lease names "${s.holder || "nobody"}"`);
    }
    const members = this.#liveMembers(now);
    const holders = this.ranges.map((r, i): string | undefined => {
      if (r.kind === "syncing" || r.kind === "active" || r.kind === "draining" || r.kind === "claiming") {
        return c.identity;
      }
      const s = this.seen.get(c.rangeName(i));
      if (!s || s.holder === "" || s.holder === c.identity) return undefined;
      return this.#expired(s, now) ? undefined : s.holder;
    });
    const desired = assignRanges(c.ranges, members, holders);
    this.ranges.forEach((r, i) => {
      const mine = desired[i] === c.identity;
      if (r.kind === "idle" && mine && !this.pending.has(c.rangeName(i))) {
        const s = this.seen.get(c.rangeName(i));
        if (!s || s.holder === c.identity || this.#expired(s, now)) {
          this.ranges[i] = { kind: "claiming" };
          this.#write("claim", c.rangeName(i), i);
        }
      } else if (r.kind === "active" && !mine && desired[i] !== undefined) {
        this.ranges[i] = { kind: "draining", until: r.until, epoch: r.epoch, since: now, aborted: false };
        this.notices.push(`Range ${i} moves to "${desired[i]}": draining`);
      } else if (r.kind === "draining" && mine) {
        this.ranges[i] = { kind: "active", until: r.until, epoch: r.epoch };
      }
    });
  }

  written(input: Extract<ShardInput, { kind: "written" }>): void {
    const c = this.config;
    const until = input.startedAt + c.renewDeadlineMs;
    const index = this.#indexOf(input.name);
    switch (input.op) {
      case "createConfig":
      case "replaceConfig":
        if (this.phase.kind === "joining") this.phase = { kind: "joining" };
        return;
      case "member":
        this.memberUntil = Math.max(this.memberUntil ?? 0, until);
        if (this.phase.kind === "joining") {
          this.phase = { kind: "running" };
          this.notices.push("Joined the shard group");
        }
        this.#finishStop();
        return;
      case "releaseMember":
        // Not renewed any more; writes outside reconciles stay allowed until its deadline.
        if (this.phase.kind === "stopping") this.phase = { kind: "stopping", memberReleased: true };
        this.#finishStop();
        return;
      case "claim": {
        if (index === undefined) return;
        const r = this.ranges[index]!;
        if (r.kind !== "claiming") return;
        if (this.phase.kind !== "running") {
          this.ranges[index] = { kind: "releasing" };
          this.#write("release", input.name, index);
          return;
        }
        this.ranges[index] = { kind: "syncing", until, epoch: ++this.claims, version: -1 };
        this.#rescoped = true;
        return;
      }
      case "renew": {
        if (index === undefined) return;
        const r = this.ranges[index]!;
        if (r.kind === "syncing" || r.kind === "active" || r.kind === "draining") {
          this.ranges[index] = { ...r, until: Math.max(r.until, until) };
        }
        this.#releaseDeferred(index);
        return;
      }
      case "release":
        if (index === undefined) return;
        if (this.ranges[index]!.kind === "releasing") {
          this.ranges[index] = { kind: "idle" };
          this.#rescoped = true;
        }
        this.#finishStop();
        return;
      default:
        return assertNever(input.op, "write op");
    }
  }

  writeFailed(op: WriteOp, name: string, conflict: boolean): void {
    const index = this.#indexOf(name);
    switch (op) {
      case "createConfig":
      case "replaceConfig":
        return;
      case "member":
        // Someone changed or removed our member Lease: register again at the next observation.
        if (conflict) this.memberUntil = undefined;
        this.#finishStop();
        return;
      case "releaseMember":
        // It lapses on its own.
        if (this.phase.kind === "stopping") this.phase = { kind: "stopping", memberReleased: true };
        this.#finishStop();
        return;
      case "claim":
        if (index !== undefined && this.ranges[index]!.kind === "claiming") {
          this.ranges[index] = { kind: "idle" };
        }
        this.#finishStop();
        return;
      case "renew":
        // The Lease changed under us: someone else holds it now. Otherwise the deadline decides.
        if (index !== undefined && conflict) this.#lose(index, "its Lease changed under us");
        if (index !== undefined) this.#releaseDeferred(index);
        return;
      case "release":
        // The Lease lapses on its own; our fence closed before the release was sent.
        if (index !== undefined && this.ranges[index]!.kind === "releasing") {
          this.ranges[index] = { kind: "idle" };
          this.#rescoped = true;
        }
        this.#finishStop();
        return;
      default:
        return assertNever(op, "write op");
    }
  }

  /** A release that waited for a renewal's answer goes out now. */
  #releaseDeferred(index: number): void {
    const name = this.config.rangeName(index);
    if (this.ranges[index]!.kind === "releasing" && !this.pending.has(name)) {
      this.#write("release", name, index);
    }
  }

  #indexOf(name: string): number | undefined {
    for (let i = 0; i < this.config.ranges; i++) if (this.config.rangeName(i) === name) return i;
    return undefined;
  }

  #lose(index: number, why: string): void {
    const r = this.ranges[index]!;
    if (r.kind !== "syncing" && r.kind !== "active" && r.kind !== "draining") return;
    this.ranges[index] = { kind: "idle" };
    this.#rescoped = true;
    this.actions.push({ kind: "abort", index, reason: "lost" });
    this.notices.push(`Lost range ${index}: ${why}`);
  }

  tick(now: number, inflight: readonly number[]): void {
    const c = this.config;
    if (this.memberUntil !== undefined && now >= this.memberUntil) {
      this.memberUntil = undefined;
      this.notices.push("Membership lapsed: its Lease was not renewed within the renew deadline");
    }
    if (this.phase.kind === "running" && this.memberUntil !== undefined && !this.pending.has(c.memberName)) {
      this.#write("member", c.memberName);
    }
    this.ranges.forEach((r, i) => {
      if (r.kind !== "syncing" && r.kind !== "active" && r.kind !== "draining") return;
      if (now >= r.until) {
        this.#lose(i, `not renewed within the renew deadline (${now - r.until} ms ago)`);
        return;
      }
      if (r.kind === "draining") {
        if ((inflight[i] ?? 0) === 0) {
          this.ranges[i] = { kind: "releasing" };
          if (this.pending.has(c.rangeName(i))) {
            // A renewal is in flight; the release follows its answer (see `renew` below).
            return;
          }
          this.#write("release", c.rangeName(i), i);
          return;
        }
        if (!r.aborted && now >= r.since + c.drainTimeoutMs) {
          this.ranges[i] = { ...r, aborted: true };
          this.actions.push({ kind: "abort", index: i, reason: "drainTimeout" });
          this.notices.push(
            `Range ${i}: in-flight reconciles did not finish within the drain timeout; aborted`,
          );
          return;
        }
        if (r.aborted && now >= r.since + c.drainTimeoutMs + c.abortGraceMs) {
          // They ignore their signal: give the claim up without a release. Nothing of ours may write for
          // it from now on (the fence), and the others take it when the Lease expires.
          this.ranges[i] = { kind: "idle" };
          this.#rescoped = true;
          this.notices.push(`Range ${i}: aborted reconciles did not return; letting the claim lapse`);
          return;
        }
      }
      if (!this.pending.has(c.rangeName(i))) this.#write("renew", c.rangeName(i), i);
    });
    this.activateSynced();
    this.#finishStop();
  }

  activateSynced(): void {
    this.ranges.forEach((r, i) => {
      if (r.kind === "syncing" && r.version >= 0 && this.syncedVersion >= r.version) {
        this.ranges[i] = { kind: "active", until: r.until, epoch: r.epoch };
        this.actions.push({ kind: "activate", index: i });
      }
    });
  }

  stop(now: number): void {
    if (this.phase.kind === "stopping") return;
    this.phase = { kind: "stopping", memberReleased: this.memberUntil === undefined };
    this.ranges.forEach((r, i) => {
      if (r.kind === "active" || r.kind === "syncing") {
        this.ranges[i] = { kind: "draining", until: r.until, epoch: r.epoch, since: now, aborted: false };
      }
    });
    this.#finishStop();
  }

  /**
   * Stopping: hand the membership back as soon as no write of ours is in flight on it; stopped once it
   * is back and no range of ours is left.
   */
  #finishStop(): void {
    if (this.phase.kind !== "stopping") return;
    const name = this.config.memberName;
    if (!this.phase.memberReleased) {
      if (!this.pending.has(name)) this.#write("releaseMember", name);
      return;
    }
    if (this.ranges.every((r) => r.kind === "idle")) this.phase = { kind: "stopped" };
  }
}
