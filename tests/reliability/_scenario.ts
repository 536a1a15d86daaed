/**
 * One reliability scenario end to end: the reference controller runs as a subprocess with exactly the
 * start task's permissions, "in-cluster", connected to the real kube-apiserver through a
 * {@linkcode FaultProxy}; Foos churn; faults fire (random network faults, a SIGKILLed kube-apiserver,
 * or an etcd outage); then everything stops and the namespace must converge. The figures come from
 * the controller's own /metrics, the proxy's counters and /proc.
 */
import { KubeClient } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { DEPLOYMENTS } from "../../lib/resources/mod.ts";
import { FOOS } from "../../lib/sample_controller/types.ts";
import { FaultProxy } from "../_util/fault_proxy.ts";
import { installSampleControllerPrerequisites } from "../_util/sample_controller.ts";
import { createNamespace, eventually, testEnv } from "../_util/testenv.ts";
import { type ControllerProcess, startController } from "../e2e/controller_process.ts";
import { type ChaosOptions, startChaos } from "./_chaos.ts";
import { seededRandom } from "../_util/seeded_random.ts";
import { type ChurnCounts, createPool, fooObject, startChurn, touchFoos } from "./_churn.ts";
import { type ControllerFigures, delta, readFigures, rssBytes } from "./_controller_metrics.ts";
import {
  type BlackholeFigures,
  disrupt,
  type Disruption,
  type DownFigures,
  type OutageFigures,
} from "./_disruptions.ts";
import { describeProblems, percentile, waitForConvergence } from "./_convergence.ts";
import { type RssTrend, rssTrend } from "./_rss.ts";

export type { Disruption } from "./_disruptions.ts";

/** Options of {@linkcode runScenario}. */
export interface ScenarioOptions {
  readonly name: string;
  /** Size of the Foo pool. */
  readonly foos: number;
  /** Length of the churn (a disruption's scenario ends its churn when the server is back instead). */
  readonly churnMs: number;
  readonly opsPerSecond: number;
  readonly seed: number;
  /** Random network faults during the churn. */
  readonly chaos?: Omit<ChaosOptions, "seed">;
  readonly disruption?: Disruption;
  /** Limit for the final convergence. */
  readonly convergeTimeoutMs: number;
  /** Sample the controller's RSS this often (0: only at the ends). */
  readonly rssSampleMs?: number;
  /** Progress lines. */
  readonly progress?: (line: string) => void;
}

/** Everything a scenario measured. */
export interface ScenarioResult {
  readonly name: string;
  readonly seed: number;
  readonly foos: number;
  readonly churn: ChurnCounts;
  /** Foos scaled the moment the faults ended (part of the convergence). */
  readonly touched: number;
  readonly churnMs: number;
  /** Proxy counters (faults by kind, connections, refused). */
  readonly proxy: FaultProxy["counters"];
  /** Controller counters over the whole churn and convergence. */
  readonly controller: ControllerFigures;
  /** Controller counters while the component was down (kill and outage only). */
  readonly whileDown?: DownFigures;
  /** ms from the kill/stop to the component answering again, and the server's time to /readyz. */
  readonly outage?: OutageFigures;
  /** When the controller replaced its blackholed watches (blackhole only). */
  readonly blackhole?: BlackholeFigures;
  /** Convergence after the last fault / the server being ready again. */
  readonly converged: boolean;
  readonly convergeP50Ms: number;
  readonly convergeP95Ms: number;
  readonly convergeMaxMs: number;
  readonly gcMs: number;
  readonly liveFoos: number;
  /** The slowest Foos and the last problem each had. */
  readonly slowest: { name: string; ms: number; lastProblem: string }[];
  readonly problems: string;
  readonly rss: RssTrend;
  /** RSS samples (Unix ms, bytes). */
  readonly rssSamples: { at: number; bytes: number }[];
  /** The JavaScript heap in use, from the soak's memory probe (same summary as `rss`). */
  readonly heap?: RssTrend;
  /** RSS minus the V8 heap's capacity (heapTotal), from the same probe (same summary as `rss`). */
  readonly outsideHeap?: RssTrend;
  /** Exit code of the controller on SIGTERM at the end (0), or its code if it died earlier. */
  readonly exitCode: number;
  /** True if the process exited on its own during the run. */
  readonly crashed: boolean;
  /** Lines of the controller's output that are not JSON log lines (Deno's uncaught errors). */
  readonly foreignOutput: string[];
  /** Bad inputs kept in the namespace during the run, each checked at the end. */
  readonly badInputs: string[];
}

const FOREIGN = "foreign-web";
const MEMORY_PROBE = new URL("./_memory_probe.ts", import.meta.url).pathname;

async function directClient(): Promise<KubeClient> {
  return new KubeClient(await loadConfig({ kubeconfig: testEnv.kubeconfig }));
}

/** Bad inputs that stay for the whole run: an invalid spec and a name collision with a foreign Deployment. */
async function createBadInputs(client: KubeClient, namespace: string): Promise<string[]> {
  await client.create(DEPLOYMENTS, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: FOREIGN, namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "foreign" } },
      template: {
        metadata: { labels: { app: "foreign" } },
        spec: { containers: [{ name: "web", image: "example.invalid/web:1" }] },
      },
    },
  });
  await client.create(FOOS, {
    ...fooObject(namespace, "collides", 2),
    spec: { deploymentName: FOREIGN, replicas: 2 },
  });
  await client.create(FOOS, {
    ...fooObject(namespace, "invalid", 1),
    spec: { deploymentName: "", replicas: 1 },
  });
  return [
    "Foo with an empty spec.deploymentName (expects Ready=False/InvalidSpec, no Deployment)",
    `Foo naming a Deployment it does not own ("${FOREIGN}"; expects Ready=False/ErrResourceExists, the Deployment untouched)`,
  ];
}

/**
 * The memory probe's samples taken since `since`, as `pick` of each: heapUsed, or RSS minus the V8 heap's
 * capacity (memory the JavaScript heap's sizing cannot explain, where a native leak would show).
 */
function probeSamples(
  controller: ControllerProcess,
  since: number,
  pick: (memory: Deno.MemoryUsage) => number,
): { at: number; bytes: number }[] {
  const out: { at: number; bytes: number }[] = [];
  for (const line of controller.logs().split("\n")) {
    if (!line.startsWith('{"memory"')) continue;
    const { memory, at } = JSON.parse(line) as { memory: Deno.MemoryUsage; at: number };
    if (at >= since) out.push({ at, bytes: pick(memory) });
  }
  return out;
}

function foreignOutput(controller: ControllerProcess): string[] {
  return controller.logs().split("\n").filter((l) => l.trim() !== "" && !l.startsWith("{"));
}

/** Runs one scenario; never throws for a failed expectation (the result says), only for broken setup. */
export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const log = options.progress ?? (() => {});
  const random = seededRandom(options.seed);
  await installSampleControllerPrerequisites();
  await using ns = await createNamespace(`rel-${options.name}`);
  await using client = await directClient();
  const badInputs = await createBadInputs(client, ns.name);
  const server = new URL(testEnv.server);
  await using proxy = await FaultProxy.start({
    target: { hostname: server.hostname, port: Number(server.port) },
  });
  // Plain metrics: the scenarios read them while the API server is down, and a secure scrape is authorized
  // through the API server (tests/e2e/metrics_secure_test.ts covers that endpoint).
  await using controller = await startController([
    "--leader-elect=false",
    "--log-level=info",
    "--metrics-secure=false",
  ], {
    apiServer: { hostname: "127.0.0.1", port: proxy.port },
    ...(options.rssSampleMs ? { preload: MEMORY_PROBE } : {}),
  });
  await eventually(async () => {
    const res = await fetch(`${controller.healthUrl}/readyz`).catch(() => undefined);
    await res?.body?.cancel();
    return res?.ok ? true : undefined;
  }, { timeoutMs: 60_000 }).catch((error) => {
    throw new Error(`controller not ready; logs:\n${controller.logs().slice(-4000)}`, { cause: error });
  });

  log(`${options.name}: creating ${options.foos} Foos`);
  await createPool(client, ns.name, options.foos);
  const initial = await waitForConvergence(client, ns.name, {
    since: Date.now(),
    timeoutMs: 180_000,
    foreign: new Set([FOREIGN]),
  });
  if (!initial.converged) {
    throw new Error(`initial sync did not converge:\n${describeProblems(initial.last)}`);
  }
  log(`${options.name}: initial sync done; churn for ${options.churnMs} ms`);

  const rssSamples: { at: number; bytes: number }[] = [];
  const sampleRss = async () => rssSamples.push({ at: Date.now(), bytes: await rssBytes(controller.pid) });
  await sampleRss();
  const sampler = options.rssSampleMs
    ? setInterval(() => void sampleRss().catch(() => {}), options.rssSampleMs)
    : 0;
  const before = await readFigures(controller);
  const started = Date.now();
  const churn = startChurn(client, {
    namespace: ns.name,
    foos: options.foos,
    opsPerSecond: options.opsPerSecond,
    random,
  });
  const chaos = options.chaos ? startChaos(proxy, { ...options.chaos, seed: options.seed }) : undefined;

  let t0: number;
  let whileDown: ScenarioResult["whileDown"];
  let outage: ScenarioResult["outage"];
  let blackhole: ScenarioResult["blackhole"];
  try {
    if (options.disruption) {
      const outcome = await disrupt(options.disruption, { proxy, controller, started, log });
      ({ t0, whileDown, outage, blackhole } = outcome);
      await churn.stop();
    } else {
      await new Promise((r) => setTimeout(r, options.churnMs));
      await churn.stop();
      t0 = chaos ? chaos.stop() : Date.now();
    }
  } finally {
    if (sampler) clearInterval(sampler);
  }
  // Changes made the moment the faults end: handling them needs working watches again.
  const touched = await touchFoos(client, ns.name, options.foos, 10, random);
  const churnMs = Date.now() - started;
  log(`${options.name}: churn done (${JSON.stringify(churn.counts)}); waiting for convergence`);
  const result = await waitForConvergence(client, ns.name, {
    since: t0,
    timeoutMs: options.convergeTimeoutMs,
    foreign: new Set([FOREIGN]),
  });
  const times = [...result.perFoo.values()];
  await eventually(
    async () => (await readFigures(controller)).queueDepth === 0 ? true : undefined,
    {
      timeoutMs: 30_000,
    },
  ).catch(() => {});
  const after = await readFigures(controller);
  await sampleRss();
  const crashed = controller.exitCode() !== undefined;
  const exitCode = await controller.stop();
  return {
    name: options.name,
    seed: options.seed,
    foos: options.foos,
    churn: churn.counts,
    touched,
    churnMs,
    proxy: structuredClone(proxy.counters),
    controller: delta(before, after),
    ...(whileDown ? { whileDown } : {}),
    ...(outage ? { outage } : {}),
    ...(blackhole ? { blackhole } : {}),
    converged: result.converged,
    convergeP50Ms: percentile(times, 50),
    convergeP95Ms: percentile(times, 95),
    convergeMaxMs: percentile(times, 100),
    gcMs: result.gcMs,
    liveFoos: result.last.foos.length,
    slowest: result.slowest,
    problems: describeProblems(result.last),
    rss: rssTrend(rssSamples, 60_000),
    rssSamples,
    ...(options.rssSampleMs
      ? {
        heap: rssTrend(probeSamples(controller, started, (m) => m.heapUsed), 60_000),
        outsideHeap: rssTrend(probeSamples(controller, started, (m) => m.rss - m.heapTotal), 60_000),
      }
      : {}),
    exitCode,
    crashed,
    foreignOutput: foreignOutput(controller),
    badInputs,
  };
}
