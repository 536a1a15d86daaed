/**
 * A tiny controller process for the leader-election, metrics and shutdown integration tests: a Manager
 * with one ConfigMap controller in one namespace, wired the way main.ts wires the reference controller
 * (one AbortController, `installSignalHandlers`, exit 0 on a clean shutdown and 1 on a failure).
 *
 * Its only argument is a JSON {@linkcode ManagerMainOptions}. A ConfigMap whose `data.sleepMs` is set
 * makes its reconcile wait that long, ignoring the abort signal, so tests can catch a reconcile in flight.
 * Reconciles log "Reconcile started" and "Reconcile finished" with the key and this process' identity.
 * With `markWrites`, each reconcile ends with a write: a merge patch of the annotation
 * `kubeloop.test/marked-by-<identity>` with field manager `<identity>`, so the server's managedFields
 * show which process wrote an object and when.
 *
 * With leader election it is wired like the reference controller: the elector has a client of its own,
 * and the reconciles' client refuses writes through the elector's LeaseFence.
 */
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { installSignalHandlers, type KubeObject, Manager } from "../../lib/controller/mod.ts";
import { LeaseFence } from "../../lib/leader/mod.ts";
import { ShardCoordinator } from "../../lib/shard/mod.ts";
import { createLogger } from "../../lib/log/create_logger.ts";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { restClientMetricsFor } from "../../lib/client/request_metrics_registry.ts";

/** The program's settings, passed as one JSON argument. */
export interface ManagerMainOptions {
  /** Admin kubeconfig of the test control plane. */
  kubeconfig: string;
  /** Namespace watched, and where the Lease lives. */
  namespace: string;
  /** Leader election identity, also written into every reconcile log line. */
  identity: string;
  /** Name of the Lease; omitted: no leader election. */
  leaseName?: string;
  /** Port of /metrics on 127.0.0.1. */
  metricsPort: number;
  /** Port of /healthz and /readyz on 127.0.0.1. */
  healthPort: number;
  /** The Manager's shutdown grace period. @default 30_000 */
  gracefulShutdownMs?: number;
  /** Every reconcile ends with a marking write (see the module doc). @default false */
  markWrites?: boolean;
  /** The marking write is sent without the reconcile's signal, so only a write fence can stop it. @default false */
  markIgnoresSignal?: boolean;
  /**
   * Share the work with other processes of this shard group instead of electing a leader: `ranges` hash
   * ranges, claims with this lease duration (renew deadline 2/3, retry period 2/15 of it).
   */
  shard?: { group: string; ranges: number; leaseMs: number };
}

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

async function main(options: ManagerMainOptions): Promise<number> {
  const logger = createLogger({ level: "debug" }).child({ identity: options.identity });
  const shutdown = new AbortController();
  using _signals = installSignalHandlers(shutdown);
  const config = await loadConfig({ kubeconfig: options.kubeconfig });
  const registry = new MetricsRegistry();
  const fence = options.leaseName === undefined ? undefined : new LeaseFence();
  await using leaseClient = new KubeClient(config, { metrics: restClientMetricsFor(registry) });
  const s = options.shard;
  const shard = s === undefined ? undefined : new ShardCoordinator(leaseClient, {
    group: s.group,
    namespace: options.namespace,
    ranges: s.ranges,
    identity: options.identity,
    leaseDurationMs: s.leaseMs,
    renewDeadlineMs: s.leaseMs * 2 / 3,
    retryPeriodMs: s.leaseMs * 2 / 15,
    logger,
  });
  const writeFence = fence ?? shard?.fence;
  await using client = new KubeClient(config, {
    metrics: restClientMetricsFor(registry),
    ...(writeFence ? { writeFence } : {}),
  });
  const factory = new SharedInformerFactory(client);
  const manager = new Manager(factory, {
    registry,
    logger,
    metricsAddress: `127.0.0.1:${options.metricsPort}`,
    healthAddress: `127.0.0.1:${options.healthPort}`,
    ...(options.gracefulShutdownMs === undefined ? {} : { gracefulShutdownMs: options.gracefulShutdownMs }),
    ...(shard ? { shard } : {}),
    ...(options.leaseName === undefined ? {} : {
      leaderElection: {
        client: leaseClient,
        ...(fence ? { fence } : {}),
        leaseName: options.leaseName,
        namespace: options.namespace,
        identity: options.identity,
      },
    }),
  });
  const configMaps = manager.controller<ConfigMap>({
    name: "configmaps",
    for: CONFIG_MAPS,
    namespace: options.namespace,
    reconcile: async (request, ctx) => {
      const sleepMs = Number(configMaps.primary.store.get(ctx.key)?.data?.["sleepMs"] ?? 0);
      ctx.logger.info("Reconcile started", { sleepMs });
      if (sleepMs > 0) await new Promise((resolve) => setTimeout(resolve, sleepMs));
      if (options.markWrites) {
        const mark = {
          metadata: { annotations: { [`kubeloop.test/marked-by-${options.identity}`]: "yes" } },
        };
        try {
          await client.patch(CONFIG_MAPS, request.name, mark, {
            type: "merge",
            namespace: options.namespace,
            fieldManager: options.identity,
            ...(options.markIgnoresSignal ? {} : { signal: ctx.signal }),
          });
          ctx.logger.info("Marked", {});
        } catch (error) {
          ctx.logger.info("Mark refused", { error: String(error) });
        }
      }
      ctx.logger.info("Reconcile finished", { aborted: ctx.signal.aborted });
    },
  });
  try {
    await manager.run({ signal: shutdown.signal });
    logger.info("Exiting cleanly");
    return 0;
  } catch (error) {
    logger.error("Manager failed", { error });
    return 1;
  }
}

if (import.meta.main) {
  const [arg] = Deno.args;
  if (arg === undefined) throw new TypeError("usage: _manager_main.ts '<ManagerMainOptions as JSON>'");
  Deno.exit(await main(JSON.parse(arg) as ManagerMainOptions));
}
