/**
 * What tracing costs when it is off (Deno without OTEL_DENO), and when on.
 *
 * - "span helpers": `inSpan`/`inSpanSync`/`activeSpanContext` with tracing off against calling the function
 *   directly, the code a build without tracing runs instead.
 * - "reconcile loop": N keys through a Controller (fake informer updates → queue → one worker → reconcile,
 *   which makes one KubeClient GET over an in-memory transport): tracing off as shipped, then the same loop
 *   with the OpenTelemetry API loaded and no SDK behind it (the API's no-op tracer), then with every span
 *   recorded in memory. The "on" cases switch tracing on for the rest of the process, so they run last.
 *
 *   deno bench --allow-env bench/tracing_bench.ts                            # N = 200 keys a round
 *       (KUBELOOP_BENCH_N keys, KUBELOOP_BENCH_ITERATIONS per case: see _util/bench_env.ts)
 *   deno run --allow-env --allow-read bench/tracing_bench.ts --medians [R]   # R interleaved rounds (200)
 *       of the loop with tracing off and of inSpan against a direct call, then R rounds of each "on"
 *       case; prints the medians
 *
 * A build without the tracing code: extract another tree's lib/ (`git archive <commit> lib | tar -x -C
 * /tmp/base`) and set KUBELOOP_BENCH_LIB=/tmp/base/lib/; then `--medians` runs that tree's loop and ours
 * round by round, alternating which goes first, and prints the ratio of their medians (and `deno bench`
 * runs its "tracing off" case on that lib/). The loop uses only long-stable APIs (Controller, FakeInformers,
 * KubeClient with a transport).
 * @module
 */
import { context, ProxyTracerProvider, trace } from "@opentelemetry/api";
import { activeSpanContext, enableTracing, inSpan, inSpanSync } from "../lib/trace/mod.ts";
import { Controller as OurController } from "../lib/controller/mod.ts";
import { type FakeInformer, FakeInformers as OurFakeInformers } from "../lib/testing/mod.ts";
import { KubeClient as OurKubeClient } from "../lib/client/mod.ts";
import type { ClusterConfig } from "../lib/config/types.ts";
import { CONFIG_MAPS } from "../lib/resources/mod.ts";
import { json, ScriptedTransport } from "../tests/_util/scripted_transport.ts";
import { installRecordingTracer } from "../tests/_util/recording_tracer.ts";
import { benchIterations, benchSize } from "./_util/bench_env.ts";
import { median, print } from "./_util/stats.ts";

const N = benchSize(200);

/** The classes the loop runs on: this tree's, or another tree's lib/. */
interface LoopClasses {
  readonly Controller: typeof OurController;
  readonly FakeInformers: typeof OurFakeInformers;
  readonly KubeClient: typeof OurKubeClient;
}

const OURS: LoopClasses = {
  Controller: OurController,
  FakeInformers: OurFakeInformers,
  KubeClient: OurKubeClient,
};

/** Another tree's lib/ (KUBELOOP_BENCH_LIB, read with --allow-read), or undefined. */
async function otherClasses(): Promise<LoopClasses | undefined> {
  const granted =
    Deno.permissions.querySync({ name: "env", variable: "KUBELOOP_BENCH_LIB" }).state === "granted";
  const other = granted ? Deno.env.get("KUBELOOP_BENCH_LIB") : undefined;
  if (!other) return undefined;
  const lib = new URL(other.endsWith("/") ? other : `${other}/`, `file://${Deno.cwd()}/`);
  const load = async <T>(path: string, name: string) => (await import(new URL(path, lib).href))[name] as T;
  return {
    Controller: await load<typeof OurController>("controller/mod.ts", "Controller"),
    FakeInformers: await load<typeof OurFakeInformers>("testing/mod.ts", "FakeInformers"),
    KubeClient: await load<typeof OurKubeClient>("client/mod.ts", "KubeClient"),
  };
}
const OTHER = await otherClasses();

// --- span helpers, tracing off ---------------------------------------------------------------------------

const work = () => Promise.resolve(1);
const workSync = () => 1;
const OPTIONS = { attributes: { "kubeloop.resource": "v1/configmaps" } };
const ASYNC = "span helpers, tracing off";
const SYNC = "span helpers, tracing off (sync)";

Deno.bench("direct async call", { group: ASYNC, baseline: true, ...benchIterations() }, async () => {
  await work();
});
Deno.bench("inSpan(name, options, fn)", { group: ASYNC, ...benchIterations() }, async () => {
  await inSpan("get v1/configmaps", OPTIONS, work);
});
Deno.bench("direct sync call", { group: SYNC, baseline: true, ...benchIterations() }, () => {
  workSync();
});
Deno.bench("inSpanSync(name, options, fn)", { group: SYNC, ...benchIterations() }, () => {
  inSpanSync("informer.event v1/configmaps", OPTIONS, workSync);
});
Deno.bench("activeSpanContext()", { group: SYNC, ...benchIterations() }, () => {
  activeSpanContext();
});

// --- the reconcile loop ---------------------------------------------------------------------------------

const config: ClusterConfig = {
  server: new URL("https://api.example:6443"),
  tls: {},
  namespace: "ns",
  source: "bench",
  inCluster: false,
  credentials: { get: () => Promise.resolve({ token: "t" }), invalidate: () => {} },
};
const answer = json(200, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "ns" } });
/** Spans the recording case collected; emptied after every round, so memory stays flat. */
let recorded: unknown[] = [];

interface Loop {
  /** Pushes N updates and resolves once N reconciles ran. */
  round(): Promise<void>;
  stop(): Promise<void>;
}

/** A running controller over fake informers, past its initial list of N objects. */
async function reconcileLoop({ Controller, FakeInformers, KubeClient }: LoopClasses): Promise<Loop> {
  const informers = new FakeInformers({ freeze: false });
  const client = new KubeClient(config, { transport: new ScriptedTransport(() => answer) });
  let done = 0;
  let target = N;
  let wake: (() => void) | undefined;
  let finished = new Promise<void>((resolve) => wake = resolve);
  const controller = new Controller(informers, {
    name: "bench",
    for: CONFIG_MAPS,
    stuckTerminatingAfterMs: 0,
    reconcile: async ({ name }) => {
      await client.get(CONFIG_MAPS, name);
      if (++done === target) wake?.();
    },
  });
  const cms = informers.get(CONFIG_MAPS) as FakeInformer;
  for (let i = 0; i < N; i++) {
    cms.add({ metadata: { name: `cm-${i}`, namespace: "ns", resourceVersion: "1" } });
  }
  informers.syncAll();
  const ac = new AbortController();
  const running = controller.run({ signal: ac.signal });
  await finished;
  let version = 1;
  return {
    async round() {
      target = done + N;
      finished = new Promise<void>((resolve) => wake = resolve);
      version++;
      for (let i = 0; i < N; i++) {
        cms.update({ metadata: { name: `cm-${i}`, namespace: "ns", resourceVersion: String(version) } });
      }
      await finished;
      recorded.length = 0;
    },
    async stop() {
      ac.abort();
      await running;
    },
  };
}

const GROUP = `reconcile loop, ${N} keys`;
const loops: Loop[] = [];

function loopCase(name: string, baseline: boolean, before?: () => Promise<void>): void {
  let loop: Loop | undefined;
  Deno.bench(name, { group: GROUP, baseline, ...benchIterations({ n: 30, warmup: 3 }) }, async () => {
    if (!loop) {
      await before?.();
      loops.push(loop = await reconcileLoop(OTHER ?? OURS));
    }
    await loop.round();
  });
}

loopCase("tracing off", true);
loopCase("tracing on, the API's no-op tracer (no SDK)", false, async () => {
  // A registered OpenTelemetry global with nothing behind it: the API hands out non-recording spans.
  trace.setGlobalTracerProvider(new ProxyTracerProvider());
  if (!await enableTracing()) throw new Error("tracing did not switch on");
});
loopCase("tracing on, every span recorded in memory", false, async () => {
  trace.disable();
  context.disable();
  recorded = await installRecordingTracer();
});

addEventListener("unload", () => {
  for (const loop of loops) void loop.stop();
});

if (import.meta.main && Deno.args.includes("--medians")) {
  const rounds = Number(Deno.args[Deno.args.indexOf("--medians") + 1] ?? "") || 200;
  const runs: [string, Loop][] = [["this tree, tracing off", await reconcileLoop(OURS)]];
  if (OTHER) runs.push([`KUBELOOP_BENCH_LIB`, await reconcileLoop(OTHER)]);
  const helpers: [string, () => Promise<unknown>][] = [
    ["direct async call", work],
    ["inSpan, tracing off", () => inSpan("get v1/configmaps", OPTIONS, work)],
  ];
  const loopTimes = runs.map((): number[] => []);
  const helperTimes = helpers.map((): number[] => []);
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < runs.length; j++) {
      const k = (i + j) % runs.length; // alternate which goes first
      const start = performance.now();
      await runs[k]![1].round();
      loopTimes[k]!.push(performance.now() - start);
    }
    for (let j = 0; j < helpers.length; j++) {
      const k = (i + j) % helpers.length;
      const start = performance.now();
      for (let r = 0; r < 1000; r++) await helpers[k]![1]();
      helperTimes[k]!.push((performance.now() - start) / 1000);
    }
  }
  print(`${rounds} interleaved rounds of ${N} reconciles (medians):`);
  runs.forEach(([name], k) => {
    const ms = median(loopTimes[k]!);
    print(`  ${name}: ${ms.toFixed(3)} ms a round, ${(ms * 1000 / N).toFixed(2)} µs a reconcile`);
  });
  if (runs.length === 2) {
    print(
      `  ratio (this tree / KUBELOOP_BENCH_LIB): ${
        (median(loopTimes[0]!) / median(loopTimes[1]!)).toFixed(3)
      }`,
    );
  }
  helpers.forEach(([name], k) => print(`  ${name}: ${(median(helperTimes[k]!) * 1e6).toFixed(1)} ns`));
  // Then tracing on, which cannot be switched off again: the same loop, one mode after the other.
  const onModes: [string, () => Promise<void>][] = [
    ["tracing on, the API's no-op tracer", async () => {
      trace.setGlobalTracerProvider(new ProxyTracerProvider());
      await enableTracing();
    }],
    ["tracing on, every span recorded", async () => {
      trace.disable();
      context.disable();
      recorded = await installRecordingTracer();
    }],
  ];
  for (const [name, switchOn] of onModes) {
    await switchOn();
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const start = performance.now();
      await runs[0]![1].round();
      times.push(performance.now() - start);
    }
    const ms = median(times);
    print(`  ${name}: ${ms.toFixed(3)} ms a round, ${(ms * 1000 / N).toFixed(2)} µs a reconcile`);
  }
  for (const [, loop] of runs) await loop.stop();
}
