import { withTimeout } from "../_internal/with_timeout.ts";
import { LEASES } from "../resources/refs.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import { defaultIdentity, isApiError, sleepOrAbort } from "./_private.ts";
import { LeaderElectionLostError } from "./errors.ts";
import type { LeaseFence } from "./lease_fence.ts";
import type { LeaderElectorOptions, LeaderMetrics } from "./elector_options.ts";
import type { Lease, LeaseClient } from "./lease_client.ts";
import { type LeaseHolder, leaseRecord, releaseLease } from "./lease_record.ts";

export type { LeaderElectorOptions, LeaderMetrics } from "./elector_options.ts";

/** `startedAt`: our clock when the successful request began, which the renew deadline is counted from. */
type Attempt =
  | { kind: "acquired"; startedAt: number }
  | { kind: "held"; holder: string }
  | { kind: "failed"; error: unknown };

/**
 * Lease-based leader election (`coordination.k8s.io/v1`), compatible with client-go's Lease lock.
 *
 * A candidate takes the Lease when it is missing, released (empty holder), or has not changed for
 * its lease duration as measured on OUR clock since we last saw it change (remote timestamps are never
 * trusted). Writes use the Lease's resourceVersion, so two candidates cannot both win one update.
 * The leader renews every retry period and steps down when it cannot renew within the renew deadline,
 * or at once when it sees another holder. The renew deadline is counted from when the last successful
 * acquire or renew request STARTED, not from when its answer arrived: a slow answer proves only that the
 * Lease was ours when the request was sent, so it must not stretch leadership. A pause past the deadline
 * (SIGSTOP, a suspended VM) ends leadership as soon as the process runs again, without another attempt.
 * On loss, the leading signal aborts at once with a {@linkcode LeaderElectionLostError}.
 *
 * Given a {@linkcode LeaseFence} (option `fence`), the elector grants it until that deadline after every
 * success and revokes it when leading ends; a KubeClient with that fence refuses writes past the deadline
 * even before the elector's own loop has run again. Give the elector a client of its own (not the one
 * whose client-side rate limiter and fence the reconciles use), so busy reconciles cannot delay renewals.
 *
 * What this does NOT guarantee: it relies on clocks on all candidates progressing at similar rates, and
 * the fence is local, not enforced by the API server: a write already sent, or one caught by a pause
 * between the fence check and the socket, can still land after another candidate took over. Use it to
 * avoid duplicate work, not for mutual exclusion of external side effects.
 *
 * @example Lead, do the work, hand the Lease back
 * ```ts
 * import assert from "node:assert/strict";
 * import { KubeClient, LeaderElector, LEASES, loadConfig } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * const leaseName = `example-${crypto.randomUUID().slice(0, 8)}`;
 * const namespace = client.namespace;
 * const stop = new AbortController();
 * let led = false;
 * const elector = new LeaderElector(client, {
 *   leaseName,
 *   namespace,
 *   // The leader's work, until its signal aborts (leadership lost, or `stop`); here: stop at once.
 *   onStartedLeading: () => {
 *     led = true;
 *     stop.abort();
 *   },
 * });
 * await elector.run({ signal: stop.signal }); // campaigns, leads, releases the Lease on stop
 * assert.ok(led && !elector.isLeader);
 * await client.delete(LEASES, leaseName, { namespace });
 * ```
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
  #fence: LeaseFence | undefined;
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
    this.#fence = o.fence;
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
   * that must not keep running without leadership (like the Manager) treat that as fatal. An abort
   * waits for the answer to a Lease write already sent (bounded by the renew deadline), so that the
   * release that follows is written at the Lease's current resourceVersion.
   */
  async run(options: { signal: AbortSignal }): Promise<void> {
    const { signal } = options;
    let acquiredAt: number | undefined;
    while (!signal.aborted) {
      const attempt = await this.#tryAcquireOrRenew(signal, this.#renewDeadlineMs);
      if (attempt.kind === "acquired") {
        acquiredAt = attempt.startedAt;
        break;
      }
      if (attempt.kind === "failed" && !signal.aborted) {
        this.#logger.warn("Cannot acquire lease", { error: String(attempt.error) });
      }
      const wait = this.#retryMs * (1 + this.#random() * this.#jitter);
      if (!await sleepOrAbort(wait, signal, this.#clock)) return;
    }
    if (acquiredAt === undefined) return;
    if (signal.aborted) {
      // Cancelled while our acquire succeeded: the Lease names us, so hand it back instead of leaving
      // every other candidate waiting a full lease duration for a leader that never led.
      if (this.#release) await this.#releaseLease();
      return;
    }
    await this.#lead(signal, acquiredAt);
  }

  /**
   * Leads: starts the leading work and renews until leadership is lost, or until `signal` aborted AND the
   * work returned. Renewals go on while the work drains after a cancel (graceful shutdown), so the Lease
   * (and the fence) stay valid for reconciles that are finishing; it is released only after that.
   */
  async #lead(signal: AbortSignal, acquiredAt: number): Promise<void> {
    this.#fence?.grant(this.#leaseKey, acquiredAt + this.#renewDeadlineMs);
    this.#setLeading(true);
    this.#logger.info("Became leader", { identity: this.identity });
    const leading = new AbortController();
    const lostCtl = new AbortController();
    const renewing = new AbortController();
    let work: Promise<void> = Promise.resolve();
    try {
      work = Promise.resolve(this.#opts.onStartedLeading?.(leading.signal, lostCtl.signal)).catch((error) => {
        this.#logger.error("onStartedLeading failed", { error: String(error) });
      });
    } catch (error) {
      this.#logger.error("onStartedLeading failed", { error: String(error) });
    }
    const onCancel = () => {
      leading.abort(new Error("leader election cancelled"));
      void work.then(() => renewing.abort());
    };
    if (signal.aborted) onCancel();
    else signal.addEventListener("abort", onCancel, { once: true });
    let lost: LeaderElectionLostError | undefined;
    try {
      lost = await this.#renewLoop(renewing.signal, acquiredAt, (at) => {
        this.#fence?.grant(this.#leaseKey, at + this.#renewDeadlineMs);
      });
    } finally {
      signal.removeEventListener("abort", onCancel);
    }
    // The fence first: from here on nothing of ours may write, whatever runs before the abort handlers.
    this.#fence?.revoke();
    this.#leading = false;
    if (lost) {
      lostCtl.abort(lost);
      leading.abort(lost);
    }
    await work;
    if (!lost && this.#release) await this.#releaseLease();
    this.#setLeading(false);
    try {
      this.#opts.onStoppedLeading?.();
    } catch (error) {
      this.#logger.error("onStoppedLeading failed", { error: String(error) });
    }
  }

  /** Renews every retry period until `signal` aborts (undefined) or leadership is lost (the error). */
  async #renewLoop(
    signal: AbortSignal,
    acquiredAt: number,
    renewed: (startedAt: number) => void,
  ): Promise<LeaderElectionLostError | undefined> {
    let renewedAt = acquiredAt;
    let lastError: unknown;
    while (!signal.aborted) {
      const deadline = renewedAt + this.#renewDeadlineMs;
      // Never sleep past the deadline: leadership ends there, whether or not an attempt is due.
      const wait = Math.min(this.#retryMs, deadline - this.#clock.now());
      if (wait > 0 && !await sleepOrAbort(wait, signal, this.#clock)) return undefined;
      const now = this.#clock.now();
      if (now >= deadline) {
        this.#logger.error("Lost leadership: cannot renew lease within the renew deadline", {
          ...(lastError === undefined ? {} : { error: String(lastError) }),
          renewDeadlineMs: this.#renewDeadlineMs,
          overdueMs: now - deadline,
        });
        return new LeaderElectionLostError(this.#leaseKey);
      }
      const attempt = await this.#tryAcquireOrRenew(signal, deadline - now);
      if (attempt.kind === "acquired") {
        renewedAt = attempt.startedAt;
        lastError = undefined;
        renewed(renewedAt);
        continue;
      }
      if (signal.aborted) return undefined;
      if (attempt.kind === "held") {
        this.#logger.warn("Lost leadership: lease taken over", { holder: attempt.holder });
        return new LeaderElectionLostError(this.#leaseKey, `was taken over by "${attempt.holder}"`);
      }
      lastError = attempt.error;
      this.#logger.warn("Cannot renew lease, retrying", { error: String(attempt.error) });
    }
    return undefined;
  }

  get #leaseKey(): string {
    return `${this.#namespace}/${this.#name}`;
  }

  #setLeading(leading: boolean): void {
    this.#leading = leading;
    this.#metrics?.setLeading(this.#name, leading);
  }

  /**
   * One read of the Lease and, when it is missing, released, expired or ours, one write naming us, both
   * within `timeoutMs`. `parent` aborts the read and keeps the write from being sent, but never abandons a
   * write already sent: the server may commit it all the same, and then only its answer tells that the
   * Lease names us and at which resourceVersion. Without that, a cancel landing mid-renewal left a
   * release at a stale resourceVersion (409 Conflict), and one landing mid-acquire left no release at all:
   * either way the others waited a full lease duration.
   */
  async #tryAcquireOrRenew(parent: AbortSignal, timeoutMs: number): Promise<Attempt> {
    const now = this.#clock.now();
    const bounds = { clock: this.#clock, what: "Lease request" };
    let lease: Lease | undefined;
    try {
      lease = await withTimeout(
        (signal) => this.#client.get(LEASES, this.#name, { namespace: this.#namespace, signal }),
        { ...bounds, signal: parent, timeoutMs },
      );
    } catch (error) {
      if (!isApiError(error, "NotFound")) return { kind: "failed", error };
    }
    if (lease) {
      this.#observe(lease, now);
      const holder = lease.spec?.holderIdentity ?? "";
      const durationMs = (lease.spec?.leaseDurationSeconds ?? this.#leaseMs / 1000) * 1000;
      if (holder !== "" && holder !== this.identity && this.#observedAt + durationMs > now) {
        return { kind: "held", holder };
      }
    }
    if (parent.aborted) return { kind: "failed", error: parent.reason };
    const leftMs = now + timeoutMs - this.#clock.now();
    if (leftMs <= 0) {
      return {
        kind: "failed",
        error: new DOMException(`Lease request timed out after ${timeoutMs} ms`, "TimeoutError"),
      };
    }
    const old = lease;
    try {
      const written = await withTimeout((signal) => {
        const req = { namespace: this.#namespace, signal };
        return old
          ? this.#client.replace(LEASES, leaseRecord(old, this.#holder, now, this.#leading), req)
          : this.#client.create(LEASES, leaseRecord(undefined, this.#holder, now, false), req);
      }, { ...bounds, timeoutMs: leftMs });
      this.#observe(written, this.#clock.now());
      return { kind: "acquired", startedAt: now };
    } catch (error) {
      return { kind: "failed", error };
    }
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
