import { KubeClient, type WriteFence } from "../client/mod.ts";
import type { ClusterConfig } from "../config/types.ts";
import type { Transport } from "../http/types.ts";
import { LeaseFence } from "../leader/mod.ts";
import { type Logger } from "../log/logger.ts";
import { type MetricsRegistry } from "../metrics/registry.ts";
import { restClientMetricsFor } from "../client/request_metrics_registry.ts";
import type { Clock } from "../time/clock.ts";
import type { ControllerFlags } from "./controller_flags.ts";
import { FIELD_MANAGER } from "./types.ts";

/** The API clients of the reference controller. Disposing closes both. */
export interface SampleControllerClients extends AsyncDisposable {
  /**
   * Informers, reconciles and events: `--kube-api-qps`/`--kube-api-burst` apply, and with leader election
   * every write passes {@linkcode fence} first.
   */
  readonly client: KubeClient;
  /**
   * The process' own control traffic: Lease renewals and the metrics scrape reviews (TokenReview,
   * SubjectAccessReview). Its own connections and no client-side rate limit, so a reconcile backlog
   * queued on `client`'s limiter cannot delay a renewal past the renew deadline; its rate is bounded by
   * the retry period and by the review cache and in-flight cap. Never fenced: a standby must be able to
   * campaign and to answer scrapes.
   */
  readonly controlClient: KubeClient;
  /** Granted by the leader elector; undefined without `--leader-elect`. */
  readonly fence: LeaseFence | undefined;
}

/** Options of {@linkcode sampleControllerClients}. */
export interface SampleControllerClientsOptions {
  /** Receives the rest_client_* metrics of both clients. */
  registry: MetricsRegistry;
  /** Parent logger. */
  logger: Logger;
  /**
   * Replaces the HTTP transport of both clients (tests).
   * @default {the clients' own}
   */
  transport?: Transport;
  /**
   * Time source of the limiter and the fence; must be the Manager's.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * The write fence of `client` instead of a leader-election LeaseFence (sharding: the coordinator's).
   * @default {a LeaseFence with --leader-elect, else none}
   */
  writeFence?: WriteFence;
  /**
   * User-Agent of both clients, naming this replica.
   * @default {"kubeloop-sample-controller/0.1.0"}
   */
  userAgent?: string;
}

/** Builds the two clients the reference controller uses; see {@linkcode SampleControllerClients}. */
export function sampleControllerClients(
  config: ClusterConfig,
  flags: Pick<ControllerFlags, "kubeApiQps" | "kubeApiBurst" | "leaderElect">,
  options: SampleControllerClientsOptions,
): SampleControllerClients {
  const { registry, logger } = options;
  const shared = {
    logger: logger.child({ component: "client" }),
    metrics: restClientMetricsFor(registry),
    userAgent: options.userAgent ?? `${FIELD_MANAGER}/0.1.0`,
    ...(options.transport ? { transport: options.transport } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  };
  const fence = flags.leaderElect ? new LeaseFence(options.clock ? { clock: options.clock } : {}) : undefined;
  const client = new KubeClient(config, {
    ...shared,
    ...(flags.kubeApiQps === undefined ? {} : { qps: flags.kubeApiQps }),
    ...(flags.kubeApiBurst === undefined ? {} : { burst: flags.kubeApiBurst }),
    ...(options.writeFence ? { writeFence: options.writeFence } : fence ? { writeFence: fence } : {}),
  });
  const controlClient = new KubeClient(config, shared);
  return {
    client,
    controlClient,
    fence,
    async [Symbol.asyncDispose]() {
      await client[Symbol.asyncDispose]();
      await controlClient[Symbol.asyncDispose]();
    },
  };
}
