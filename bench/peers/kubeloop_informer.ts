/**
 * Cold-sync probe of kubeloop for bench/peers/cold_sync.ts: an Informer (lib/cache) over a KubeClient
 * (lib/client) from loadConfig (lib/config) lists and watches ConfigMaps (or Foos) in one namespace,
 * with the library's default initial list unless one is named; once
 * `ready()` has resolved and the store holds the expected count, it prints
 * "synced <count> <ms since process start>" and exits. The start is $KUBELOOP_BENCH_T0_MS (epoch ms,
 * set by the harness just before it starts the process), else the runtime's time origin.
 *
 *   KUBECONFIG=PATH deno run --allow-net=127.0.0.1 --allow-read \
 *     --allow-env=KUBECONFIG,HOME,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT,KUBELOOP_BENCH_T0_MS \
 *     bench/peers/kubeloop_informer.ts <namespace> <expect> [configmaps|foos] [auto|paged|stream]
 */
import { Informer } from "../../lib/cache/mod.ts";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { FOOS } from "../../lib/sample_controller/types.ts";
import type { InitialListMode } from "../../lib/watch/mod.ts";

const [namespace = "default", expectArg = "0", resource = "configmaps", initialList] = Deno.args;
const expect = Number(expectArg);
const encoder = new TextEncoder();
const t0 = Number(Deno.env.get("KUBELOOP_BENCH_T0_MS") ?? "");

function fail(message: string): never {
  Deno.stderr.writeSync(encoder.encode(`kubeloop-informer: ${message}\n`));
  Deno.exit(1);
}

const controller = new AbortController();
const timeout = setTimeout(() => controller.abort(new Error("not synced within 300 s")), 300_000);
await using client = new KubeClient(await loadConfig());
const informer = new Informer(client, resource === "foos" ? FOOS : CONFIG_MAPS, {
  namespace,
  ...(initialList ? { initialList: initialList as InitialListMode } : {}),
});
const running = informer.run({ signal: controller.signal });
try {
  await informer.ready(controller.signal);
  while (informer.store.size < expect) {
    controller.signal.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
const elapsed = t0 > 0 ? Date.now() - t0 : Math.round(performance.now());
Deno.stdout.writeSync(encoder.encode(`synced ${informer.store.size} ${elapsed}\n`));
clearTimeout(timeout);
controller.abort();
await running;
