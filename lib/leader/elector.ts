import { withTimeout } from "../_internal/with_timeout.ts";
import { LEASES } from "../client/resources.ts";
import { type Logger, noopLogger } from "../observe/types.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import { defaultIdentity, isApiError, sleepOrAbort } from "./_private.ts";
import type { LeaderElectorOptions, LeaderMetrics } from "./elector_options.ts";
import type { Lease, LeaseClient } from "./lease_client.ts";
import { type LeaseHolder, leaseRecord, releaseLease } from "./lease_record.ts";

export type { LeaderElectorOptions, LeaderMetrics } from "./elector_options.ts";

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
  #holder: LeaseHolder;
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
    this.#holder = {
      identity: this.identity,
      name: o.leaseName,
      namespace: o.namespace,
      leaseMs: this.#leaseMs,
    };
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
    let acquired = false;
    while (!signal.aborted) {
      const attempt = await this.#tryAcquireOrRenew(signal, this.#renewDeadlineMs);
      acquired = attempt.kind === "acquired";
      if (acquired) break;
      if (attempt.kind === "failed" && !signal.aborted) {
        this.#logger.warn("Cannot acquire lease", { error: String(attempt.error) });
      }
      const wait = this.#retryMs * (1 + this.#random() * this.#jitter);
      if (!await sleepOrAbort(wait, signal, this.#clock)) return;
    }
    if (!acquired) return;
    if (signal.aborted) {
      // Cancelled while our acquire succeeded: the Lease names us, so hand it back instead of leaving
      // every other candidate waiting a full lease duration for a leader that never led.
      if (this.#release) await this.#releaseLease();
      return;
    }
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
    return await withTimeout(async (signal): Promise<Attempt> => {
      const req = { namespace: this.#namespace, signal };
      const now = this.#clock.now();
      let lease: Lease;
      try {
        lease = await this.#client.get(LEASES, this.#name, req);
      } catch (error) {
        if (!isApiError(error, "NotFound")) return { kind: "failed", error };
        try {
          const created = await this.#client.create(
            LEASES,
            leaseRecord(undefined, this.#holder, now, false),
            req,
          );
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
        const replaced = await this.#client.replace(
          LEASES,
          leaseRecord(lease, this.#holder, now, this.#leading),
          req,
        );
        this.#observe(replaced, this.#clock.now());
        return { kind: "acquired" };
      } catch (error) {
        return { kind: "failed", error };
      }
    }, { signal: parent, timeoutMs, clock: this.#clock, what: "Lease request" })
      .catch((error: unknown): Attempt => ({ kind: "failed", error }));
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
    await releaseLease(this.#client, lease, {
      namespace: this.#namespace,
      timeoutMs: this.#renewDeadlineMs,
      clock: this.#clock,
      logger: this.#logger,
    });
  }
}
