import { SharedInformerFactory } from "../cache/mod.ts";
import { type ClusterConfig, ConfigError, loadConfig } from "../config/mod.ts";
import { controllerOf, Manager } from "../controller/mod.ts";
import { informerMetricsFor } from "../cache/informer_metrics_registry.ts";
import { type Logger } from "../log/logger.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { sampleControllerClients } from "./clients.ts";
import { metricsSecurity } from "./metrics_security.ts";
import type { ControllerFlags } from "./controller_flags.ts";
import { type DeploymentReader, reconcileFoo } from "./reconcile.ts";
import { fooTriggers } from "./triggers.ts";
import { serveFooWebhooks } from "./webhook_serving.ts";
import { DEPLOYMENTS } from "../resources/refs.ts";
import type { WriteFence } from "../client/mod.ts";
import { NotShardOwnerError, ShardCoordinator } from "../shard/mod.ts";
import { hostnameOr } from "../_internal/hostname.ts";
import { type Deployment, FIELD_MANAGER, type Foo, FOOS } from "./types.ts";

/** Env var overriding the service-account directory. For tests that run the binary "in-cluster" outside a pod. */
export const SERVICE_ACCOUNT_DIR_ENV = "KUBELOOP_SERVICE_ACCOUNT_DIR";
const CONTROLLER_UID_INDEX = "controller-uid";

/**
 * Fetches the credentials once before anything starts, so that credentials that cannot work (an
 * unreadable token file, an exec plugin this build may not run) stop the program with a ConfigError
 * (exit code 2) instead of informers retrying them forever.
 */
async function checkCredentials(config: ClusterConfig, signal: AbortSignal): Promise<void> {
  try {
    await config.credentials.get(signal);
  } catch (error) {
    if (error instanceof ConfigError && error.cause instanceof Deno.errors.NotCapable) {
      throw new ConfigError(
        `${error.message}. The image and the compile task build the controller without it; build with ` +
          "`deno task compile:exec` to use exec credential plugins",
        { reason: error.reason, ...(error.file ? { file: error.file } : {}), cause: error },
      );
    }
    throw error;
  }
}

/** Options of {@linkcode runSampleController}. */
export interface RunOptions {
  /** Shutdown: the first SIGTERM/SIGINT aborts it. */
  signal: AbortSignal;
  /** Where everything is logged. */
  logger: Logger;
  /**
   * Reads the service-account directory override.
   * @default {Deno.env.get}
   */
  env?: (name: string) => string | undefined;
}

/**
 * Runs the Foo controller until `signal` aborts: loads the configuration (may throw ConfigError), starts the
 * Foo and Deployment informers (also while standing by, so a new leader starts with warm caches, unless
 * `warmStandby` is false), serves
 * /metrics (HTTPS to authorized scrapers unless `--metrics-secure=false`), /healthz and /readyz (ready once
 * the caches synced), the Foo webhooks with `--webhook-bind-address`, and reconciles — only while holding the
 * Lease when `leaderElect` is set. Resolves on a clean shutdown; rejects on a fatal error, including a lost
 * leadership (like controller-runtime, the process then exits and restarts as a candidate).
 */
export async function runSampleController(flags: ControllerFlags, options: RunOptions): Promise<void> {
  const { logger, signal } = options;
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const inClusterDir = env(SERVICE_ACCOUNT_DIR_ENV);
  const config = await loadConfig({
    logger,
    signal,
    env,
    ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}),
    ...(flags.context ? { context: flags.context } : {}),
    ...(flags.master ? { master: flags.master } : {}),
    ...(inClusterDir ? { inClusterDir } : {}),
  });
  logger.info("Loaded configuration", { source: config.source, server: config.server.href });
  await checkCredentials(config, signal);
  const registry = new MetricsRegistry();
  const namespace = flags.leaderElectionNamespace ??
    (config.inCluster ? config.namespace : "default");
  // Sharding: the reconciles' client is fenced by the coordinator, which needs the control client first.
  const identity = `${hostnameOr("unknown")}_${crypto.randomUUID().slice(0, 8)}`;
  const late: { fence?: WriteFence } = {};
  const sharded = flags.shards === undefined ? {} : {
    userAgent: `${FIELD_MANAGER}/0.1.0 shard/${identity}`,
    writeFence: {
      check: () => {
        if (!late.fence) throw new NotShardOwnerError("Write refused: sharding has not started");
        late.fence.check();
      },
    },
  };
  await using clients = sampleControllerClients(config, flags, { registry, logger, ...sharded });
  const { client, controlClient, fence } = clients;
  const shard = flags.shards === undefined ? undefined : new ShardCoordinator(controlClient, {
    group: flags.shardGroup,
    namespace: flags.shardNamespace ?? (config.inCluster ? config.namespace : "default"),
    ranges: flags.shards,
    key: flags.shardKey,
    selector: flags.shardSelector,
    identity,
    leaseDurationMs: flags.shardLeaseDurationS * 1000,
    renewDeadlineMs: flags.shardLeaseDurationS * 1000 * 2 / 3,
    retryPeriodMs: flags.shardLeaseDurationS * 1000 * 2 / 15,
    logger: logger.child({ component: "shard" }),
  });
  if (shard) late.fence = shard.fence;
  const factory = new SharedInformerFactory(client, {
    logger: logger.child({ component: "informer" }),
    metrics: informerMetricsFor(registry),
  });
  // Stops the metrics certificate watcher however run ends (a lost Lease rejects without `signal`).
  const stopping = new AbortController();
  using _stop = { [Symbol.dispose]: () => stopping.abort() };
  const secure = await metricsSecurity(flags, controlClient, { signal: stopping.signal, logger });
  const manager = new Manager(factory, {
    registry,
    metricsAddress: flags.metricsBindAddress,
    healthAddress: flags.healthProbeBindAddress,
    ...secure,
    logger,
    warmStandby: flags.warmStandby,
    ...(shard ? { shard } : {}),
    ...(flags.leaderElect
      ? {
        leaderElection: {
          client: controlClient,
          leaseName: flags.leaderElectionId,
          namespace,
          ...(fence ? { fence } : {}),
        },
      }
      : {}),
  });
  const scope = flags.namespace ? { namespace: flags.namespace } : {};
  // Asked for first, so our index is the one the shared informer gets (first caller's options win).
  // Sharded: the same shares the controller asks for (so the same informers), Deployments by their Foo.
  const deploymentInformer = factory.informer<Deployment>(DEPLOYMENTS, {
    ...scope,
    ...(shard ? { partition: shard.partition(DEPLOYMENTS, "controller") } : {}),
    indexers: { [CONTROLLER_UID_INDEX]: (d) => [controllerOf(d)?.uid ?? ""].filter((uid) => uid !== "") },
  });
  const fooInformer = factory.informer<Foo>(FOOS, {
    ...scope,
    ...(shard ? { partition: shard.partition(FOOS, "self") } : {}),
  });
  const deployments: DeploymentReader = {
    get: (key) => deploymentInformer.store.get(key),
    controlledBy: (uid) => deploymentInformer.store.byIndex(CONTROLLER_UID_INDEX, uid),
  };
  // Owned by the Manager: its last events are written before the Lease is released (client is fenced).
  const recorder = manager.eventRecorder(client, {
    reportingController: FIELD_MANAGER,
    logger: logger.child({ component: "events" }),
  });
  manager.controller<Foo>({
    name: "foo",
    // Foo spec changes and owned Deployment changes; our own status writes do not trigger another sync.
    ...fooTriggers(),
    workers: flags.workers,
    ...scope,
    reconcile: async (_request, ctx) => {
      const result = await reconcileFoo(ctx.key, {
        foos: fooInformer.store,
        deployments,
        client,
        recorder,
        logger: ctx.logger,
      }, {
        signal: ctx.signal,
      });
      ctx.logger.debug("Synced", { result: result.kind });
      // A Deployment the server has and our cache not yet: try again once the informer caught up.
      return result.kind === "notCached" ? { requeue: true } : {};
    },
  });
  // Served by every replica, leader or not: the API server calls whichever the Service picks.
  const webhookFailure = new AbortController();
  const webhooks = await serveFooWebhooks(flags, {
    client: controlClient,
    registry,
    logger,
    // Out of a cluster there is no namespace of our own; kube-system is excluded anyway.
    namespace: config.inCluster ? config.namespace : "kube-system",
    secretNamespace: namespace,
    ...(fence ? { fence } : {}),
    onFailure: (error) => webhookFailure.abort(error),
    signal: stopping.signal,
  });
  try {
    await manager.run({ signal: AbortSignal.any([options.signal, webhookFailure.signal]) });
    if (webhookFailure.signal.aborted) throw webhookFailure.signal.reason;
  } finally {
    stopping.abort();
    await webhooks.finished;
  }
}
