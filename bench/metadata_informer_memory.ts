/**
 * Heap of an informer cache: whole objects vs metadata only (`metadataOnly: true`, PartialObjectMetadata),
 * against a real kube-apiserver. N ConfigMaps (bench/peers/configmaps.ts: ~1 KB of data plus labels and
 * annotations each) are created once; then each measurement runs in a fresh process: two gc() calls,
 * heapUsed, an informer synced over the namespace, two gc() calls, heapUsed. Modes alternate, medians
 * are printed with their ratio.
 *
 *   deno run --allow-all bench/metadata_informer_memory.ts            # N=2000, 5 runs per mode
 *   KUBELOOP_BENCH_N=10000 deno run --allow-all bench/metadata_informer_memory.ts
 *
 * Starts the local control plane with lib/testing's startTestEnv (set KUBELOOP_TESTENV_BIN to skip the
 * build script), or uses `--kubeconfig PATH`.
 */
import { Informer } from "../lib/cache/mod.ts";
import { KubeClient } from "../lib/client/mod.ts";
import { loadConfig } from "../lib/config/mod.ts";
import { CONFIG_MAPS, type ConfigMap, NAMESPACES } from "../lib/resources/mod.ts";
import { startTestEnv } from "../lib/testing/mod.ts";
import { configMap } from "./peers/configmaps.ts";

const encoder = new TextEncoder();
/** Benchmark output goes straight to stdout (the library's no-console rule is about library code). */
function print(text: string): void {
  Deno.stdout.writeSync(encoder.encode(text + "\n"));
}

const args = Deno.args;
const flag = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

if (flag("--measure")) {
  // Child: one measurement, printed as a JSON line.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --v8-flags=--expose-gc");
  const heap = () => {
    gc();
    gc();
    return Deno.memoryUsage().heapUsed;
  };
  const config = await loadConfig({ kubeconfig: flag("--kubeconfig")!, env: () => undefined });
  await using client = new KubeClient(config);
  const before = heap();
  const informer = new Informer(client, CONFIG_MAPS, {
    namespace: flag("--namespace")!,
    metadataOnly: flag("--measure") === "metadata",
  });
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  await informer.ready(AbortSignal.timeout(120_000));
  const after = heap();
  const size = informer.store.size;
  stop.abort();
  await running;
  print(JSON.stringify({ bytes: after - before, size }));
} else {
  const n = Number(Deno.env.get("KUBELOOP_BENCH_N") ?? "2000");
  const runs = Number(Deno.env.get("KUBELOOP_BENCH_RUNS") ?? "5");
  const given = flag("--kubeconfig");
  const env = given ? undefined : await startTestEnv({ controllerManager: false });
  const kubeconfig = given ?? env!.kubeconfig;
  try {
    const namespace = `bench-metadata-${crypto.randomUUID().slice(0, 8)}`;
    await using client = new KubeClient(await loadConfig({ kubeconfig, env: () => undefined }));
    await client.create(NAMESPACES, { metadata: { name: namespace } });
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < n; i = next++) {
        await client.create(CONFIG_MAPS, configMap(i, namespace) as unknown as ConfigMap);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const results: Record<string, number[]> = { full: [], metadata: [] };
    for (let r = 0; r < runs; r++) {
      for (const mode of r % 2 ? ["metadata", "full"] : ["full", "metadata"]) {
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "--allow-all",
            "--v8-flags=--expose-gc",
            new URL(import.meta.url).pathname,
            "--measure",
            mode,
            "--kubeconfig",
            kubeconfig,
            "--namespace",
            namespace,
          ],
          stderr: "inherit",
        }).output();
        const line = JSON.parse(new TextDecoder().decode(out.stdout).trim()) as {
          bytes: number;
          size: number;
        };
        if (line.size !== n) throw new Error(`${mode}: cached ${line.size} of ${n} objects`);
        results[mode]!.push(line.bytes);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const full = median(results.full!);
    const meta = median(results.metadata!);
    print(`${n} ConfigMaps (~1 KB data each), informer heap after sync, median of ${runs} runs per mode:`);
    print(`  whole objects   ${(full / 1e6).toFixed(2)} MB  (${(full / n).toFixed(0)} B/object)`);
    print(`  metadata only   ${(meta / 1e6).toFixed(2)} MB  (${(meta / n).toFixed(0)} B/object)`);
    print(
      `  metadata-only / whole = ${(meta / full).toFixed(2)} (saves ${
        (100 * (1 - meta / full)).toFixed(0)
      } %)`,
    );
  } finally {
    await env?.stop();
  }
}
