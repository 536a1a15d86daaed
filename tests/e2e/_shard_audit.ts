/**
 * The no-double-reconcile audit: from the replicas' logs, who reconciled which key when; from the API
 * server's audit log, every write each replica made and every claim it held. Both checks return the
 * violations they find (empty: none).
 * @module
 */
import { rangeOf } from "../../lib/shard/hash_range.ts";
import type { AuditEvent, LogLine, Replica } from "./_shard_harness.ts";

/** One reconcile of one key by one replica: from its start to its end (ms). */
export interface ReconcileWindow {
  readonly replica: string;
  readonly key: string;
  readonly range: number;
  readonly epoch: number;
  readonly start: number;
  end: number;
  /** Cut at the claim's deadline: the replica lost the range past it (paused, cut off). */
  cut?: boolean;
}

const ms = (line: LogLine) => Date.parse(String(line.ts));

/**
 * Reconcile windows of every replica. A reconcile counts from its start to its end, except when its
 * replica lost the claim by its deadline (a pause, a partition: it logs "Range given up" only once it runs
 * again, after the deadline): then it counts until the deadline, past which the fence refuses every write
 * it tries. A replica killed mid-reconcile counts until it was killed; one still running, until now.
 */
export function reconcileWindows(replicas: readonly Replica[]): ReconcileWindow[] {
  const windows: ReconcileWindow[] = [];
  for (const r of replicas) {
    const lines = r.lines();
    const open = new Map<string, ReconcileWindow>();
    const deadlines = new Map<string, number>();
    for (const line of lines) {
      if (line.msg === "Range given up" && line.how === "idle" && ms(line) >= Number(line.untilMs)) {
        deadlines.set(`${line.range}/${line.epoch}`, Number(line.untilMs));
      }
      if (line.msg !== "Reconcile started" && line.msg !== "Reconcile ended") continue;
      const key = String(line.key);
      if (line.msg === "Reconcile started") {
        const w: ReconcileWindow = {
          replica: r.identity,
          key,
          range: Number(line.range),
          epoch: Number(line.epoch),
          start: ms(line),
          end: Infinity,
        };
        open.set(key, w);
        windows.push(w);
      } else {
        const w = open.get(key);
        if (w) w.end = ms(line);
        open.delete(key);
      }
    }
    for (const w of open.values()) w.end = r.killedAt ?? Date.now();
    for (const w of windows) {
      const deadline = w.replica === r.identity ? deadlines.get(`${w.range}/${w.epoch}`) : undefined;
      if (deadline !== undefined && w.end > deadline) {
        w.end = Math.max(w.start, deadline);
        w.cut = true;
      }
    }
  }
  return windows;
}

/** Keys reconciled by two replicas in overlapping windows. */
export function doubleReconciles(windows: readonly ReconcileWindow[]): string[] {
  const byKey = new Map<string, ReconcileWindow[]>();
  for (const w of windows) byKey.set(w.key, [...(byKey.get(w.key) ?? []), w]);
  const out: string[] = [];
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.start - b.start);
    let reach: ReconcileWindow | undefined;
    for (const w of list) {
      if (reach && w.start < reach.end && w.replica !== reach.replica) {
        out.push(
          `${key}: ${reach.replica} [${iso(reach.start)}, ${iso(reach.end)}] overlaps ${w.replica} from ${
            iso(w.start)
          }`,
        );
      }
      if (!reach || w.end > reach.end) reach = w;
    }
  }
  return out;
}

function iso(t: number): string {
  return Number.isFinite(t) ? new Date(t).toISOString() : String(t);
}

/** Options of {@linkcode unfencedWrites}. */
export interface WriteAuditOptions {
  /** The group's name (range Leases are `<group>-r<i>`). */
  readonly group: string;
  /** Number of ranges. */
  readonly ranges: number;
  /** Renew deadline of the replicas (ms). */
  readonly renewDeadlineMs: number;
  /** Foo name → uid (Deployments are named after their Foo). */
  readonly uidOf: ReadonlyMap<string, string>;
}

/** A holder's claim on a range as the API server recorded it: accepted at `from`, valid until `until`. */
interface Claim {
  readonly holder: string;
  readonly from: number;
  readonly until: number;
}

/**
 * Writes to Foos and Deployments made by a replica for a range it did not hold at that moment, judged by
 * the API server's own records: the write was received while the last accepted write of the range's Lease
 * (before it) named that replica, within the renew deadline counted from when that Lease write was received
 * (its request started earlier on the replica, so this bound is, if anything, late). Also counts how many
 * writes of each replica were checked.
 */
export function unfencedWrites(
  events: readonly AuditEvent[],
  options: WriteAuditOptions,
): { violations: string[]; checked: Map<string, number> } {
  const ok = (e: AuditEvent) => (e.responseStatus?.code ?? 0) >= 200 && (e.responseStatus?.code ?? 0) < 300;
  const replicaOf = (e: AuditEvent) => /shard\/(\S+)/.exec(e.userAgent ?? "")?.[1];
  const claims = new Map<number, Claim[]>();
  const rangeLease = new RegExp(`^${options.group}-r(\\d+)$`);
  for (const e of events) {
    const m = rangeLease.exec(e.objectRef?.name ?? "");
    if (!m || e.objectRef?.resource !== "leases" || !ok(e) || (e.verb !== "create" && e.verb !== "update")) {
      continue;
    }
    const received = Date.parse(e.requestReceivedTimestamp);
    const holder = e.requestObject?.spec?.holderIdentity ?? "";
    const list = claims.get(Number(m[1])) ?? [];
    list.push({ holder, from: Date.parse(e.stageTimestamp), until: received + options.renewDeadlineMs });
    claims.set(Number(m[1]), list);
  }
  for (const list of claims.values()) list.sort((a, b) => a.from - b.from);
  const violations: string[] = [];
  const checked = new Map<string, number>();
  for (const e of events) {
    const resource = e.objectRef?.resource;
    if ((resource !== "foos" && resource !== "deployments") || !ok(e)) continue;
    const replica = replicaOf(e);
    if (!replica) continue;
    const uid = options.uidOf.get(e.objectRef?.name ?? "");
    if (!uid) {
      violations.push(`${e.verb} ${resource}/${e.objectRef?.name} by ${replica}: unknown Foo`);
      continue;
    }
    const range = rangeOf(uid, options.ranges);
    const at = Date.parse(e.requestReceivedTimestamp);
    const last = (claims.get(range) ?? []).filter((c) => c.from <= at).at(-1);
    checked.set(replica, (checked.get(replica) ?? 0) + 1);
    if (!last || last.holder !== replica || at >= last.until) {
      violations.push(
        `${e.verb} ${resource}/${e.objectRef?.name} (range ${range}) by ${replica} at ${e.requestReceivedTimestamp}: ` +
          (last
            ? `the range's Lease named "${last.holder}" until ${iso(last.until)}`
            : "the range was never claimed"),
      );
    }
  }
  return { violations, checked };
}
