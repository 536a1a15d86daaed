/**
 * kubeloop's informer cold sync inside one warm process, against the local control plane: the
 * library's own cost without runtime start-up (compare bench/peers/run.sh, which starts a process per
 * sync and runs the peers too). Each iteration builds a fresh KubeClient (new TLS connection) and
 * Informer over N ConfigMaps (bench/peers/configmaps.ts) and waits for `ready()` with all N cached;
 * the groups compare the initial-list strategies.
 *
 *   deno task bench                                              # all benches, this one included
 *   deno bench --allow-all bench/informer_sync_bench.ts         # N=2000; KUBELOOP_BENCH_N=10000 for more
 *       (KUBELOOP_BENCH_ITERATIONS per case: see _util/bench_env.ts)
 *
 * It starts the control plane (tests/_util/testenv.ts; the first run builds it), so it needs
 * --allow-all; without --allow-run it registers one ignored bench and does nothing.
 */
import type { InitialListMode } from "../lib/watch/mod.ts";
import type { KubeObject } from "../lib/resources/mod.ts";
import { configMap } from "./peers/configmaps.ts";
import { benchIterations, benchSize } from "./_util/bench_env.ts";

const canRun = (await Deno.permissions.query({ name: "run" })).state === "granted";

if (!canRun) {
  Deno.bench({
    name: "informer cold sync (needs --allow-all: starts the control plane)",
    ignore: true,
    fn() {},
  });
} else {
  const { testEnv, createNamespace } = await import("../tests/_util/testenv.ts");
  const { KubeClient } = await import("../lib/client/mod.ts");
  const { CONFIG_MAPS } = await import("../lib/resources/mod.ts");
  const { Informer } = await import("../lib/cache/mod.ts");
  const { loadConfig } = await import("../lib/config/mod.ts");

  const n = benchSize(2000);
  const config = await loadConfig({ kubeconfig: testEnv.kubeconfig, env: () => undefined });
  const ns = await createNamespace("bench-informer-sync");
  {
    await using client = new KubeClient(config);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < n; i = next++) {
        await client.create(CONFIG_MAPS, configMap(i, ns.name) as unknown as KubeObject);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  }

  const coldSync = async (initialList: InitialListMode) => {
    const controller = new AbortController();
    await using client = new KubeClient(config);
    const informer = new Informer(client, CONFIG_MAPS, { namespace: ns.name, initialList });
    const running = informer.run({ signal: controller.signal });
    await informer.ready();
    // the test namespace also holds kube-root-ca.crt (kube-controller-manager publishes it)
    while (informer.store.size < n) await new Promise((resolve) => setTimeout(resolve, 1));
    controller.abort();
    await running;
  };

  for (const [mode, baseline] of [["paged", true], ["stream", false], ["auto", false]] as const) {
    Deno.bench({
      name: `initialList "${mode}", ${n} ConfigMaps`,
      group: "informer cold sync",
      baseline,
      ...benchIterations({ n: 5, warmup: 1 }),
      async fn() {
        await coldSync(mode);
      },
    });
  }
}
