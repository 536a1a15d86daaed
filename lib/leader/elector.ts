import { formatMicroTime } from "../events/micro_time.ts";
import { type Logger, noopLogger } from "../observe/types.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import { defaultIdentity, isApiError, sleepOrAbort, withTimeout } from "./_private.ts";
import { type Lease, type LeaseClient, leaseRef, type LeaseSpec } from "./lease_client.ts";

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
  /** This candidate's identity. @default `${Deno.hostname()}_${random suffix}` */
  identity?: string;
  /** How long a non-leader waits after the last observed change before taking over. @default 15_000 */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before giving up. @default 10_000 */
  renewDeadlineMs?: number;
  /** Interval between acquire and renew attempts. @default 2_000 */
  retryPeriodMs?: number;
  /** Acquire attempts wait `retryPeriodMs * (1 + random * jitterFactor)`. @default 1.2 */
  jitterFactor?: number;
  /** On cancel, hand the Lease back so another candidate takes over at once. @default true */
  releaseOnCancel?: boolean;
  /**
   * Called once leadership is gained. `signal` aborts when it is lost or the elector is cancelled.
   * A returned promise is awaited before the Lease is released, so work can finish first.
   */
  onStartedLeading?: (signal: AbortSignal) => void | Promise<void>;
  /** Called after leading ends (and after the release, if any). */
  onStoppedLeading?: () => void;
  /** Called when a different holder is observed, including this candidate. */
  onNewLeader?: (identity: string) => void;
  /** Gauge hook. @default no-op */
  metrics?: LeaderMetrics;
  /** Time source. @default systemClock */
  clock?: Clock;
  /** Structured logs. @default noopLogger */
  logger?: Logger;
  /** Source of jitter in [0, 1). @default Math.random */
  random?: () => number;
}

type Attempt = { kind: "acquired" } | { kind: "held"; holder: string } | { kind: "failed"; error: unknown };

/**
 * Lease-based leader election (`coordination.k8s.io/v1`), compatible with client-go's Lease lock.
 *
 * A candidate takes the Lease when it is missing, released (empty holder), or has not changed for
 * its lease duration as measured on OUR clock since we last saw it change (remote timestamps are never
 * trusted). Writes use the Lease's resourceVersion, so two candidates cannot both win one update.
 * The leader renews every retry period and steps down when it cannot renew within the renew deadline,
 * or at once when it sees another holder.
 *
 * What this does NOT guarantee: it relies on clocks on all candidates progressing at similar rates, and
 * it gives no fencing. A leader that pauses (GC, CPU starvation, suspended VM) can keep acting after its
 * Lease expired and another candidate took over, so two leaders may briefly overlap. Use it to avoid
 * duplicate work, not for mutual exclusion of external side effects.
 */
export class LeaderElector {
  /** This candidate's identity, written to `spec.holderIdentity`. */
  readonly identity: string;
  #client: LeaseClient;
  #name: string;
  #namespace: string;
  #leaseMs: number;
  #renewDeadlineMs: number;
  #retryMs: number;
  #jitter: number;
  #release: boolean;
  #opts: LeaderElectorOptions;
  #metrics: LeaderMetrics | undefined;
  #clock: Clock;
  #logger: Logger;
  #random: () => number;
  #lease: Lease | undefined;
  #observedRecord = "";
  #observedAt = 0;
  #leader: string | undefined;
  #leading = false;

  /** Creates the instance; see the options type for defaults. */
  constructor(client: LeaseClient, options: LeaderElectorOptions) {
    const o = options;
    this.#leaseMs = o.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = o.renewDeadlineMs ?? 10_000;
    this.#retryMs = o.retryPeriodMs ?? 2_000;
    this.#jitter = o.jitterFactor ?? 1.2;
    if (!o.leaseName || !o.namespace) throw new TypeError("LeaderElector needs a leaseName and a namespace");
    if (this.#leaseMs <= this.#renewDeadlineMs) {
      throw new RangeError(`leaseDurationMs (${this.#leaseMs}) must be greater than renewDeadlineMs`);
    }
    if (this.#renewDeadlineMs <= this.#jitter * this.#retryMs) {
      throw new RangeError(
        `renewDeadlineMs (${this.#renewDeadlineMs}) must exceed jitterFactor * retryPeriodMs`,
      );
    }
    if (this.#leaseMs < 1000) throw new RangeError("leaseDurationMs must be at least 1000");
    this.#client = client;
    this.#name = o.leaseName;
    this.#namespace = o.namespace;
    this.#release = o.releaseOnCancel ?? true;
    this.#opts = o;
    this.#metrics = o.metrics;
    this.#clock = o.clock ?? systemClock;
    this.#logger = (o.logger ?? noopLogger).child({ lease: `${o.namespace}/${o.leaseName}` });
    this.#random = o.random ?? Math.random;
    this.identity = o.identity ?? defaultIdentity();
  }

  /** True while this candidate holds the Lease. */
  get isLeader(): boolean {
    return this.#leading;
  }

  /** The last holder observed on the Lease (possibly stale), or undefined. */
  get leader(): string | undefined {
    return this.#leader;
  }

  /**
   * Campaigns until leadership is gained, leads until it is lost or `signal` aborts, then returns.
   * Resolves (never rejects) on abort; after a loss it also resolves, and `isLeader` is false — callers
   * that must not keep running without leadership (like the Manager) treat that as fatal.
   */
  async run(options: { signal: AbortSignal }): Promise<void> {
    const { signal } = options;
    while (!signal.aborted) {
      const attempt = await this.#tryAcquireOrRenew(signal, this.#renewDeadlineMs);
      if (attempt.kind === "acquired") break;
      if (attempt.kind === "failed" && !signal.aborted) {
        this.#logger.warn("Cannot acquire lease", { error: String(attempt.error) });
      }
      const wait = this.#retryMs * (1 + this.#random() * this.#jitter);
      if (!await sleepOrAbort(wait, signal, this.#clock)) return;
    }
    if (signal.aborted && !this.#leading) return;
    await this.#lead(signal);
  }

  async #lead(signal: AbortSignal): Promise<void> {
    this.#setLeading(true);
    this.#logger.info("Became leader", { identity: this.identity });
    const leading = new AbortController();
    let work: Promise<void> = Promise.resolve();
    try {
      work = Promise.resolve(this.#opts.onStartedLeading?.(leading.signal)).catch((error) => {
        this.#logger.error("onStartedLeading failed", { error: String(error) });
      });
    } catch (error) {
      this.#logger.error("onStartedLeading failed", { error: String(error) });
    }
    let lastRenew = this.#clock.now();
    let lost = false;
    while (!signal.aborted) {
      if (!await sleepOrAbort(this.#retryMs, signal, this.#clock)) break;
      const remaining = lastRenew + this.#renewDeadlineMs - this.#clock.now();
      const attempt = await this.#tryAcquireOrRenew(signal, Math.max(1, remaining));
      if (attempt.kind === "acquired") {
        lastRenew = this.#clock.now();
        continue;
      }
      if (signal.aborted) break;
      if (attempt.kind === "held") {
        this.#logger.warn("Lost leadership: lease taken over", { holder: attempt.holder });
        lost = true;
        break;
      }
      if (this.#clock.now() - lastRenew >= this.#renewDeadlineMs) {
        this.#logger.error("Lost leadership: cannot renew lease within the renew deadline", {
          error: String(attempt.error),
          renewDeadlineMs: this.#renewDeadlineMs,
        });
        lost = true;
        break;
      }
      this.#logger.warn("Cannot renew lease, retrying", { error: String(attempt.error) });
    }
    this.#leading = false;
    leading.abort(new Error(lost ? "leadership lost" : "leader election cancelled"));
    await work;
    if (!lost && this.#release) await this.#releaseLease();
    this.#setLeading(false);
    try {
      this.#opts.onStoppedLeading?.();
    } catch (error) {
      this.#logger.error("onStoppedLeading failed", { error: String(error) });
    }
  }

  #setLeading(leading: boolean): void {
    this.#leading = leading;
    this.#metrics?.setLeading(this.#name, leading);
  }

  async #tryAcquireOrRenew(parent: AbortSignal, timeoutMs: number): Promise<Attempt> {
    return await withTimeout(parent, timeoutMs, this.#clock, async (signal): Promise<Attempt> => {
      const req = { namespace: this.#namespace, signal };
      const now = this.#clock.now();
      let lease: Lease;
      try {
        lease = await this.#client.get(leaseRef, this.#name, req);
      } catch (error) {
        if (!isApiError(error, "NotFound")) return { kind: "failed", error };
        try {
          const created = await this.#client.create(leaseRef, this.#newLease(undefined, now), req);
          this.#observe(created, this.#clock.now());
          return { kind: "acquired" };
        } catch (error) {
          return { kind: "failed", error };
        }
      }
      this.#observe(lease, now);
      const holder = lease.spec?.holderIdentity ?? "";
      const durationMs = (lease.spec?.leaseDurationSeconds ?? this.#leaseMs / 1000) * 1000;
      if (holder !== "" && holder !== this.identity && this.#observedAt + durationMs > now) {
        return { kind: "held", holder };
      }
      try {
        const replaced = await this.#client.replace(leaseRef, this.#newLease(lease, now), req);
        this.#observe(replaced, this.#clock.now());
        return { kind: "acquired" };
      } catch (error) {
        return { kind: "failed", error };
      }
    }).catch((error: unknown): Attempt => ({ kind: "failed", error }));
  }

  #newLease(old: Lease | undefined, now: number): Lease {
    const spec: LeaseSpec = old?.spec ?? {};
    const renewing = spec.holderIdentity === this.identity && this.#leading;
    const transitions = spec.leaseTransitions ?? 0;
    return {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: old ? { ...old.metadata } : { name: this.#name, namespace: this.#namespace },
      spec: {
        ...spec,
        holderIdentity: this.identity,
        leaseDurationSeconds: Math.ceil(this.#leaseMs / 1000),
        acquireTime: renewing && spec.acquireTime ? spec.acquireTime : formatMicroTime(now),
        renewTime: formatMicroTime(now),
        leaseTransitions: renewing || !old ? transitions : transitions + 1,
      },
    };
  }

  /** Remembers when (on our clock) the record last changed; expiry is judged from that, not remote times. */
  #observe(lease: Lease, now: number): void {
    this.#lease = lease;
    const s = lease.spec ?? {};
    const record = JSON.stringify([s.holderIdentity, s.renewTime, s.acquireTime, s.leaseDurationSeconds]);
    if (record !== this.#observedRecord) {
      this.#observedRecord = record;
      this.#observedAt = now;
    }
    const holder = s.holderIdentity ?? "";
    if (holder !== "" && holder !== this.#leader) {
      this.#leader = holder;
      try {
        this.#opts.onNewLeader?.(holder);
      } catch (error) {
        this.#logger.error("onNewLeader failed", { error: String(error) });
      }
    }
  }

  async #releaseLease(): Promise<void> {
    const lease = this.#lease;
    if (!lease || lease.spec?.holderIdentity !== this.identity) return;
    const now = formatMicroTime(this.#clock.now());
    const released: Lease = {
      ...lease,
      spec: { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1, acquireTime: now, renewTime: now },
    };
    const never = new AbortController().signal;
    try {
      await withTimeout(
        never,
        this.#renewDeadlineMs,
        this.#clock,
        (signal) => this.#client.replace(leaseRef, released, { namespace: this.#namespace, signal }),
      );
      this.#logger.info("Released lease");
    } catch (error) {
      this.#logger.warn("Cannot release lease; others take over after it expires", { error: String(error) });
    }
  }
}
