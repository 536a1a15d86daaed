import type { KubeObject } from "../resources/object.ts";
import {
  LeaderElectionLostError,
  LeaderElector,
  type LeaderElectorOptions,
  type LeaseClient,
} from "../leader/mod.ts";
import {
  type CertificateSource,
  type CheckFailure,
  type ScrapeAuthorizer,
  serveObservability,
} from "../observe/mod.ts";
import { EventRecorder, type EventRecorderOptions } from "../events/recorder.ts";
import type { EventsClient } from "../events/types.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import { Controller, type ControllerOptions } from "./controller.ts";
import { leaderMetricsFor } from "../leader/leader_metrics_registry.ts";
import type { InformerSource } from "./types.ts";
import type { ControllerShard } from "./controller_options.ts";
import type { ShardCoordinator } from "../shard/mod.ts";

/** What the Manager needs from a SharedInformerFactory. */
export interface InformerFactoryLike extends InformerSource {
  /** Starts every informer created so far (and later ones) until `signal` aborts. */
  start(signal: AbortSignal): void;
  /** Resolves once every informer stopped after that signal aborted; awaited before `run` resolves. */
  stopped?(): Promise<void>;
}

/** Leader election settings of a Manager. */
export type ManagerLeaderElection =
  & Omit<LeaderElectorOptions, "onStartedLeading" | "onStoppedLeading" | "clock" | "logger" | "metrics">
  & {
    /**
     * Reads and writes the Lease (a KubeClient). Give it a client of its own, without the reconciles'
     * client-side rate limit and write fence: busy reconciles must not delay renewals, and the fence
     * would refuse the elector's own Lease writes before it leads.
     */
    client: LeaseClient;
  };

/** Options of {@linkcode Manager}. */
export interface ManagerOptions {
  /**
   * Run controllers only while holding this Lease.
   * @default {no leader election: always run}
   */
  leaderElection?: ManagerLeaderElection;
  /**
   * With leader election on, start the informers on a standby too, so that a new leader reconciles at
   * once instead of listing first. The cost: a standby holds the same caches as the leader. The reference
   * controller with 10,000 Foos and their Deployments: 132 MB RSS on a warm standby, 63 MB on a cold one,
   * which then took 3.4 s instead of 50 ms from taking the Lease to its first reconcile (docs/reliability.md).
   * False starts them when leadership is gained; a cold standby reports ready (it has nothing to sync).
   * @default {true}
   */
  warmStandby?: boolean;
  /**
   * Split the work with other replicas instead of electing a leader: every controller made through the
   * Manager reconciles only the keys of the ranges this coordinator holds, with the informer shares and the
   * write fence that go with them (give `coordinator.fence` as the `writeFence` of the reconciles' client).
   * `run` prepares it (RBAC check, selector detection) before the informers start, runs it beside the
   * controllers, and stops it after them, so every range is released once its reconciles returned.
   * Exclusive with `leaderElection`.
   * @default {no sharding}
   */
  shard?: ManagerShard;
  /**
   * Shared by every controller and served at /metrics.
   * @default {a new MetricsRegistry}
   */
  registry?: MetricsRegistry;
  /**
   * Where /metrics listens; "0" disables.
   * @default {":8080"}
   */
  metricsAddress?: string;
  /**
   * Where /healthz and /readyz listen (plain HTTP); "0" disables.
   * @default {":8081"}
   */
  healthAddress?: string;
  /**
   * Serve /metrics over HTTPS with this certificate (see `ObservabilityOptions.metricsTls`).
   * @default {HTTP}
   */
  metricsTls?: CertificateSource;
  /**
   * Authenticate and authorize every scrape; needs `metricsTls`.
   * @default {no check}
   */
  metricsAuthorizer?: ScrapeAuthorizer;
  /**
   * Default {@linkcode ControllerOptions.gracefulShutdownMs} of controllers created through the Manager.
   * @default {30_000}
   */
  gracefulShutdownMs?: number;
  /**
   * Structured logs.
   * @default {noopLogger}
   */
  logger?: Logger;
  /**
   * Time source.
   * @default {systemClock}
   */
  clock?: Clock;
}

export { LeaderElectionLostError };

/** What the Manager needs from a shard coordinator (lib/shard's `ShardCoordinator`). */
export type ManagerShard = ControllerShard & Pick<ShardCoordinator, "prepare" | "run">;

/**
 * Runs controllers the way controller-runtime's manager does: starts the shared informers (also on a
 * standby, so a new leader starts with warm caches, unless `warmStandby` is false), runs the controllers
 * only while leading when leader election is on, and serves /healthz, /readyz (all controller caches
 * synced) and /metrics.
 *
 * On abort: controllers stop taking work and in-flight reconciles get up to the grace period (the Lease is
 * still renewed meanwhile), then their signals abort and they get up to 5 s more to return; only then is
 * the Lease released, informers and servers stop, and `run` resolves. Losing leadership aborts every
 * in-flight reconcile's signal at once (no grace period: another replica may already lead), waits up to
 * 5 s for them to return, and rejects with {@linkcode LeaderElectionLostError}. With a
 * `leaderElection.fence` that is also the `writeFence` of the reconciles' KubeClient, their writes are
 * refused from the renew deadline on, even after a process pause. A second SIGINT/SIGTERM exiting at once is the process' business:
 * main.ts does it with `installSignalHandlers`.
 *
 * @example Run controllers with shared caches, health and metrics
 * ```ts
 * import { KubeClient, loadConfig, Manager, NAMESPACES, SharedInformerFactory } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * // "0" turns the servers off; a program keeps the defaults (/metrics on :8080, /healthz on :8081) and
 * // may add `leaderElection`.
 * const manager = new Manager(new SharedInformerFactory(client), {
 *   metricsAddress: "0",
 *   healthAddress: "0",
 * });
 * const stop = new AbortController(); // main.ts aborts it on SIGTERM
 * manager.controller({
 *   name: "namespaces",
 *   for: NAMESPACES,
 *   reconcile: async ({ name }) => {
 *     if (name === "default") stop.abort();
 *   },
 * });
 * await manager.run({ signal: stop.signal }); // resolves after a graceful stop
 * ```
 */
export class Manager {
  /** The registry served at /metrics. */
  readonly registry: MetricsRegistry;
  #factory: InformerFactoryLike;
  #options: ManagerOptions;
  #logger: Logger;
  #clock: Clock;
  #controllers: Controller<KubeObject>[] = [];
  #elector: LeaderElector | undefined;
  #recorders: EventRecorder[] = [];
  #started = false;
  #informersStarted = false;

  /** Creates the instance; see the options type for defaults. */
  constructor(informers: InformerFactoryLike, options: ManagerOptions = {}) {
    if (options.shard && options.leaderElection) {
      throw new TypeError("A Manager takes either `shard` or `leaderElection`, not both");
    }
    this.#factory = informers;
    this.#options = options;
    this.registry = options.registry ?? new MetricsRegistry();
    this.#logger = options.logger ?? noopLogger;
    this.#clock = options.clock ?? systemClock;
  }

  /** Builds a controller on the Manager's informers, registry, logger and clock, and registers it. */
  controller<T extends KubeObject>(options: ControllerOptions<T>): Controller<T> {
    if (this.#started) throw new Error("Register controllers before Manager.run");
    const c = new Controller<T>(this.#factory, {
      registry: this.registry,
      logger: this.#logger,
      clock: this.#clock,
      gracefulShutdownMs: this.#options.gracefulShutdownMs ?? 30_000,
      ...(this.#options.shard ? { shard: this.#options.shard } : {}),
      ...options,
    });
    this.#controllers.push(c as unknown as Controller<KubeObject>);
    return c;
  }

  /**
   * An {@linkcode EventRecorder} the Manager owns. Its last events are written after the controllers
   * stop and BEFORE the Lease is released, so a `client` whose `writeFence` is the Lease's fence may
   * still write them; when leadership was lost they are abandoned instead (the fence would refuse
   * them). A recorder of your own disposed after `run()` resolves flushes too late for a fenced client:
   * the Lease is gone and every pending event fails with NotLeaderError.
   */
  eventRecorder(client: EventsClient, options: EventRecorderOptions): EventRecorder {
    const recorder = new EventRecorder(client, { clock: this.#clock, logger: this.#logger, ...options });
    this.#recorders.push(recorder);
    return recorder;
  }

  /** True once every controller's informers have synced, or while a cold standby waits (the /readyz check). */
  ready(): boolean {
    if (this.#coldStandby()) return true;
    return this.#controllers.every((c) => c.hasSynced());
  }

  /**
   * The /readyz answer: ready once every controller's informers have synced; otherwise one failure per
   * unsynced informer, naming the controller and the resource, with its last list/watch failure as the
   * reason — so a missing RBAC rule (403) or CRD (404) shows as such instead of a silent timeout. /readyz
   * shows the names; the reasons go to the log (they may name users).
   */
  readiness(): { ready: boolean; failures: CheckFailure[] } {
    if (this.#coldStandby()) return { ready: true, failures: [] };
    const failures = this.#controllers.flatMap((c) =>
      c.syncProblems().map((p) => ({
        check: `informer ${p.resource} of controller "${c.name}"`,
        reason: p.reason,
      }))
    );
    return { ready: failures.length === 0 && this.ready(), failures };
  }

  /** True while controllers may run: leading, or leader election is off. */
  get isLeader(): boolean {
    return this.#elector ? this.#elector.isLeader : this.#started;
  }

  /** Runs until `signal` aborts (resolves) or leadership is lost / a controller fails (rejects). */
  async run(options: { signal: AbortSignal }): Promise<void> {
    if (this.#started) throw new Error("Manager.run may be called once");
    this.#started = true;
    const { signal } = options;
    const background = new AbortController();
    const o = this.#options;
    const server = o.metricsAddress === "0" && o.healthAddress === "0" ? undefined : serveObservability({
      metricsAddress: o.metricsAddress ?? ":8080",
      healthAddress: o.healthAddress ?? ":8081",
      ...(o.metricsTls ? { metricsTls: o.metricsTls } : {}),
      ...(o.metricsAuthorizer ? { metricsAuthorizer: o.metricsAuthorizer } : {}),
      registry: this.registry,
      readyz: () => {
        const { ready, failures } = this.readiness();
        return { ok: ready, failures };
      },
      signal: background.signal,
      logger: this.#logger,
    });
    const startInformers = () => {
      if (this.#informersStarted) return;
      this.#informersStarted = true;
      this.#factory.start(background.signal);
    };
    try {
      // Before the informers start, so they list this replica's share from the first request.
      if (o.shard) await o.shard.prepare({ signal });
      if (!o.leaderElection || (o.warmStandby ?? true)) startInformers();
      if (o.shard) {
        await this.#runSharded(o.shard, signal);
        return;
      }
      const election = o.leaderElection;
      if (!election) {
        await this.#runControllers(signal);
        return;
      }
      const { client, ...electorOptions } = election;
      const campaign = new AbortController();
      const stopCampaign = () => campaign.abort(signal.reason);
      // A signal that aborted already (SIGTERM while the process was starting) fires no event.
      if (signal.aborted) stopCampaign();
      else signal.addEventListener("abort", stopCampaign, { once: true });
      let failure: unknown;
      let lostReason: unknown;
      this.#elector = new LeaderElector(client, {
        ...electorOptions,
        clock: this.#clock,
        logger: this.#logger,
        metrics: leaderMetricsFor(this.registry),
        onStartedLeading: async (leading, lost) => {
          lost.addEventListener("abort", () => void (lostReason = lost.reason), { once: true });
          startInformers(); // a cold standby starts them now; the controllers wait for their sync
          try {
            await this.#runControllers(leading, lost);
          } catch (error) {
            failure = error;
            campaign.abort(error);
          }
        },
      });
      try {
        await this.#elector.run({ signal: campaign.signal });
      } finally {
        signal.removeEventListener("abort", stopCampaign);
      }
      if (failure !== undefined) throw failure;
      if (!signal.aborted) {
        throw lostReason instanceof LeaderElectionLostError
          ? lostReason
          : new LeaderElectionLostError(`${election.namespace}/${election.leaseName}`);
      }
    } finally {
      // Never led, or already closed while leading: nothing of theirs may be written now.
      await this.#closeRecorders(AbortSignal.abort());
      background.abort();
      await Promise.all([server?.finished, this.#factory.stopped?.()]);
      this.#logger.info("Manager stopped");
    }
  }

  /**
   * Controllers and the coordinator side by side. On shutdown the controllers stop first (their grace
   * period), then the coordinator releases what it holds; a refused configuration aborts the controllers'
   * in-flight work at once and rejects.
   */
  async #runSharded(shard: ManagerShard, signal: AbortSignal): Promise<void> {
    const stopShard = new AbortController();
    const refused = new AbortController();
    const stopControllers = new AbortController();
    const onAbort = () => stopControllers.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    // Settles to the refusal (or undefined), so it is never an unhandled rejection while controllers run.
    const sharding = shard.run({ signal: stopShard.signal }).then(() => undefined, (error: unknown) => {
      refused.abort(error);
      stopControllers.abort(error);
      return { error };
    });
    let controllers: { error: unknown } | undefined;
    try {
      await this.#runControllers(stopControllers.signal, refused.signal);
    } catch (error) {
      controllers = { error };
    }
    signal.removeEventListener("abort", onAbort);
    stopShard.abort();
    const failed = (await sharding) ?? controllers;
    if (failed) throw failed.error;
  }

  async #runControllers(signal: AbortSignal, lost?: AbortSignal): Promise<void> {
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const runs = this.#controllers.map((c) =>
      c.run({ signal: stop.signal, ...(lost ? { abortInFlight: lost } : {}) }).catch((error) => {
        stop.abort(error);
        throw error;
      })
    );
    try {
      const results = await Promise.allSettled(runs);
      // Still leading on a shutdown: the last events go out now, before the Lease is released.
      await this.#closeRecorders(lost);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed) throw failed.reason;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Standing by with leader election on and the informers not started (`warmStandby: false`). */
  #coldStandby(): boolean {
    return this.#elector !== undefined && !this.#informersStarted;
  }

  /** Closes the Manager's recorders; an aborted `abandon` drops their pending writes unsent. */
  async #closeRecorders(abandon: AbortSignal | undefined): Promise<void> {
    await Promise.all(this.#recorders.map((r) => r.close({ signal: abandon })));
  }
}
