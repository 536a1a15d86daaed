import type { Project } from "../project.ts";
import { docComment } from "./doc_comment.ts";
import { KUBELOOP } from "./specifiers.ts";

/** main.ts: flags, configuration, the Manager with leader election, and signal handling. */
export function mainTs(p: Project): string {
  const K = p.kind;
  const v = p.variable;
  const moduleDoc = docComment(
    `${p.name}: runs the ${K} controller against the cluster of $KUBECONFIG (or ~/.kube/config, or the ` +
      "pod's service account inside a cluster) until SIGINT or SIGTERM. `deno task start --help` lists the " +
      "flags. Exit codes: 0 after a clean shutdown, 1 on a failure, 2 for a bad flag.\n@module",
  );
  return `${moduleDoc}
import { parseArgs } from "node:util";
import {
  createLogger,
  installSignalHandlers,
  KubeClient,
  LeaseFence,
  loadConfig,
  type Logger,
  Manager,
  SharedInformerFactory,
} from ${KUBELOOP};
import { FIELD_MANAGER, ${v}Controller } from "./${p.files.controller}";

const USAGE = \`usage: deno task start [flags]
  --leader-elect                    reconcile only while holding the Lease "\${FIELD_MANAGER}" (run more
                                    than one replica with it)
  --namespace NS                    the controller's own namespace: its Lease${
    p.namespaced ? "" : " and its ConfigMaps"
  } live there
                                    (default: the pod's namespace in a cluster, else the kubeconfig
                                    context's)
  --health-probe-bind-address ADDR  /healthz and /readyz (default ":8081"; "0" turns them off)
  --metrics-bind-address ADDR       Prometheus /metrics (default "0": off; e.g. ":8080")
\`;

/** The command line, or a TypeError naming the bad flag. */
function parseFlags(args: string[]) {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      "leader-elect": { type: "boolean", default: false },
      "namespace": { type: "string" },
      "health-probe-bind-address": { type: "string", default: ":8081" },
      "metrics-bind-address": { type: "string", default: "0" },
      "help": { type: "boolean", default: false },
    },
  });
  return values;
}

/** Runs the controller until \`signal\` aborts (resolves) or something fails (rejects). */
async function run(flags: ReturnType<typeof parseFlags>, logger: Logger, signal: AbortSignal): Promise<void> {
  const config = await loadConfig({ logger, signal });
  const namespace = flags.namespace ?? config.namespace;
  // With leader election, reconciles write through a fence the Lease grants: a replica that lost its
  // Lease (or was paused past its renew deadline) cannot write any more. The elector's own client is
  // not fenced, so it can campaign, and not rate-limited by busy reconciles, so renewals are on time.
  const fence = flags["leader-elect"] ? new LeaseFence() : undefined;
  await using client = new KubeClient(config, { logger, ...(fence ? { writeFence: fence } : {}) });
  await using leaseClient = fence ? new KubeClient(config, { logger }) : undefined;
  const informers = new SharedInformerFactory(client, { logger });
  const manager = new Manager(informers, {
    logger,
    healthAddress: flags["health-probe-bind-address"],
    metricsAddress: flags["metrics-bind-address"],
    ...(leaseClient && fence
      ? { leaderElection: { client: leaseClient, leaseName: FIELD_MANAGER, namespace, fence } }
      : {}),
  });
  manager.controller(${v}Controller({ informers, client${p.namespaced ? "" : ", namespace"} }));
  logger.info("Starting", { namespace, leaderElection: fence !== undefined });
  await manager.run({ signal });
}

if (import.meta.main) {
  let flags: ReturnType<typeof parseFlags>;
  try {
    flags = parseFlags(Deno.args);
  } catch (error) {
    console.error(\`\${(error as Error).message}\\n\${USAGE}\`);
    Deno.exit(2);
  }
  if (flags.help) {
    console.log(USAGE);
    Deno.exit(0);
  }
  const shutdown = new AbortController();
  // The first SIGINT/SIGTERM stops gracefully (in-flight reconciles finish, the Lease is released);
  // a second one exits at once.
  using _signals = installSignalHandlers(shutdown);
  const logger = createLogger();
  try {
    await run(flags, logger, shutdown.signal);
  } catch (error) {
    logger.error("Stopped on a failure", { error });
    Deno.exit(1);
  }
}
`;
}
