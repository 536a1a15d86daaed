/**
 * kubeloop's side of bench/priority/run.ts: a Controller (lib/controller) of the Foos in one namespace whose
 * reconcile does what the controller-runtime peer's does (bench/peers/controller_runtime/main.go): read the
 * Foo from the cache and write `status.availableReplicas = spec.replicas` with one JSON merge patch of the
 * status subresource. One worker (the default of both), no client-side rate limit (KubeClient's default).
 * `--priority=false` sets `prioritizeChanges: false` (every change in arrival order). It prints
 * "synced <ms since start>" once its informer synced (the start is $KUBELOOP_BENCH_T0_MS, else the runtime's
 * time origin) and runs until SIGTERM.
 *
 *   KUBECONFIG=PATH deno run --allow-net=127.0.0.1 --allow-read \
 *     --allow-env=KUBECONFIG,HOME,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT,KUBELOOP_BENCH_T0_MS \
 *     --ignore-env=LOG_TOKENS,LOG_STREAM bench/priority/kubeloop_status.ts <namespace> [--priority=false]
 */
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { Controller } from "../../lib/controller/mod.ts";
import { createLogger } from "../../lib/log/mod.ts";
import { type Foo, FOOS } from "../../lib/sample_controller/types.ts";

const [namespace = "default", ...flags] = Deno.args;
const prioritizeChanges = !flags.includes("--priority=false");
const t0 = Number(Deno.env.get("KUBELOOP_BENCH_T0_MS") ?? "");
const logger = createLogger({ level: "warn" });

const stop = new AbortController();
Deno.addSignalListener("SIGTERM", () => stop.abort());
await using client = new KubeClient(await loadConfig());
const informers = new SharedInformerFactory(client, { logger });
const controller = new Controller<Foo>(informers, {
  name: "foo-status",
  for: FOOS,
  namespace,
  prioritizeChanges,
  logger,
  reconcile: async ({ name }, ctx) => {
    const foo = controller.primary.store.get(`${namespace}/${name}`);
    if (!foo) return;
    const patch = { status: { availableReplicas: foo.spec?.replicas ?? 0 } };
    await client.patch(FOOS, name, patch, {
      namespace,
      type: "merge",
      subresource: "status",
      signal: ctx.signal,
    });
  },
});
informers.start(stop.signal);
const running = controller.run({ signal: stop.signal });
await controller.primary.ready(stop.signal).then(() => {
  const elapsed = t0 > 0 ? Date.now() - t0 : Math.round(performance.now());
  Deno.stdout.writeSync(new TextEncoder().encode(`synced ${elapsed}\n`));
}, () => {});
await running;
await informers.stopped();
