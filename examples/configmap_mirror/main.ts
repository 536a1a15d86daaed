/**
 * Runs the ConfigMapMirror controller against the cluster of $KUBECONFIG (or ~/.kube/config, or in-cluster)
 * until SIGINT/SIGTERM.
 *
 *   deno run --allow-net --allow-read --allow-env=HOME,KUBECONFIG,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT \
 *     --ignore-env=LOG_TOKENS,LOG_STREAM --allow-sys=hostname examples/configmap_mirror/main.ts \
 *     [--health-probe-bind-address=:8081] [--metrics-bind-address=:8080]
 */
import {
  createLogger,
  installSignalHandlers,
  KubeClient,
  loadConfig,
  Manager,
  SharedInformerFactory,
} from "../../lib/mod.ts";
import { FIELD_MANAGER, mirrorController } from "./mirror.ts";

const flag = (name: string, fallback: string) =>
  Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;

const shutdown = new AbortController();
using _signals = installSignalHandlers(shutdown); // first signal: graceful stop; second: exit 1
const logger = createLogger();
await using client = new KubeClient(await loadConfig({ logger }), { logger });
const informers = new SharedInformerFactory(client, { logger });
const manager = new Manager(informers, {
  logger,
  metricsAddress: flag("metrics-bind-address", ":8080"),
  healthAddress: flag("health-probe-bind-address", ":8081"),
});
// Owned by the Manager: flushed when the controllers stop, before a Lease (if any) is released.
const recorder = manager.eventRecorder(client, { reportingController: FIELD_MANAGER });
manager.controller(mirrorController({ informers, client, recorder }));
await manager.run({ signal: shutdown.signal });
