/**
 * Scale scenario for the reference controller (a measurement, not a timed test): N Foos with 1–3 replicas
 * each on a fresh local control plane whose Pods KWOK simulates, about 2N Pods in all. For each N it reports
 * the time from the first create until every Foo is Ready with all its replicas available, the controller's
 * resident memory and CPU (idle before, peak/average during the burst, idle after), and the API requests the
 * controller made per Foo (its own rest_client_requests_total).
 *
 *   deno run --allow-all bench/scale/foos.ts              # N = 100 and 1000
 *   deno run --allow-all bench/scale/foos.ts 100 300 1000
 *   deno run --allow-all bench/scale/foos.ts --default-limits 1000
 *   deno run --allow-all bench/scale/foos.ts --settle=0 --window=1 2   # the test suite's smoke run
 *
 * `--window=S` (default 10) is the idle window after the burst, the one before it is at most 5 s;
 * `--settle=S` (default 10) the pause between the last Foo Ready and that window.
 *
 * The controller runs as `deno task start` would, with its defaults (2 workers, no client-side rate limit,
 * secure metrics), out-of-cluster with the admin kubeconfig; the request counts come from its /metrics
 * (metrics_scrape.ts). Each N gets its own control plane, so sizes do not share load.
 * kube-controller-manager and kube-scheduler run without their client-side rate limits (testenv
 * -unlimited-qps; 20 and 50 requests/s by default), as scale tests of a cluster usually do; otherwise the
 * ReplicaSet controller's Pod creation at 20/s sets the pace. `--default-limits` keeps them.
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { KubeClient } from "../../lib/client/mod.ts";
import { type KubeObject } from "../../lib/resources/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { FOOS } from "../../lib/sample_controller/mod.ts";
import { freePort, startTaskFlags } from "../../tests/_util/start_task.ts";
import { startOwnedTestEnv } from "../../tests/_util/testenv_process.ts";
import { ProcessSampler } from "./process_sampler.ts";
import { metricsScraper, requestsBetween } from "./metrics_scrape.ts";
import { report, type ScaleResult } from "./report.ts";

const root = new URL("../../", import.meta.url).pathname;
const NAMESPACE = "scale";
const READY_TIMEOUT_MS = 30 * 60_000;

function say(text: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(text + "\n"));
}

async function run(cmd: string, args: string[], stdin?: string): Promise<string> {
  const child = new Deno.Command(cmd, {
    args,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")}: ${dec.decode(out.stderr)}`);
  return dec.decode(out.stdout);
}

/** Foo number `i`: 1, 2 or 3 replicas in turn. */
function foo(i: number): KubeObject & { spec: { deploymentName: string; replicas: number } } {
  const name = `foo-${String(i).padStart(4, "0")}`;
  return {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name, namespace: NAMESPACE },
    spec: { deploymentName: name, replicas: 1 + (i % 3) },
  };
}

/** Foos that are Ready with every wanted replica available, out of all listed. */
async function countReady(client: KubeClient): Promise<number> {
  let ready = 0;
  for await (const page of client.listAll(FOOS, { namespace: NAMESPACE })) {
    for (
      const f of page
        .items as (KubeObject & { spec?: { replicas?: number }; status?: Record<string, unknown> })[]
    ) {
      const conditions = (f.status?.conditions ?? []) as { type: string; status: string }[];
      const isReady = conditions.some((c) => c.type === "Ready" && c.status === "True");
      if (isReady && f.status?.availableReplicas === f.spec?.replicas) ready++;
    }
  }
  return ready;
}

function total(byMethod: Record<string, number>): number {
  return Object.values(byMethod).reduce((a, b) => a + b, 0);
}

/** How one size runs. */
interface ScenarioOptions {
  /** kube-controller-manager and kube-scheduler keep their client-side rate limits. */
  defaultLimits: boolean;
  /** Seconds between the last Foo Ready and the idle window after the burst. */
  settleS: number;
  /** Seconds of the idle window after the burst (the one before it: at most 5). */
  windowS: number;
}

async function scenario(n: number, o: ScenarioOptions): Promise<ScaleResult> {
  say(`== ${n} Foos: starting a control plane with 10 simulated nodes`);
  await using plane = await startOwnedTestEnv(
    o.defaultLimits ? ["-nodes=10"] : ["-nodes=10", "-unlimited-qps"],
  );
  const kubectl = (args: string[], stdin?: string) =>
    run(plane.kubectl, [`--kubeconfig=${plane.kubeconfig}`, ...args], stdin);
  await kubectl(["apply", "-f", join(root, "crds", "samplecontroller.k8s.io_foos.yaml")]);
  await kubectl(["wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io", "--timeout=60s"]);
  await kubectl(["create", "namespace", NAMESPACE]);

  await using scraper = await metricsScraper(kubectl);
  const metricsPort = freePort();
  const healthPort = freePort();
  const controller = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...await startTaskFlags(),
      join(root, "main.ts"),
      `--kubeconfig=${plane.kubeconfig}`,
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      `--health-probe-bind-address=127.0.0.1:${healthPort}`,
      ...scraper.flags,
      "--log-level=warn",
    ],
    env: { KUBECONFIG: "" },
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const sampler = new ProcessSampler(controller.pid);
  try {
    for (let i = 0;; i++) {
      const res = await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => undefined);
      await res?.body?.cancel();
      if (res?.ok) break;
      if (i > 600) throw new Error("controller not ready after 60 s");
      await new Promise((r) => setTimeout(r, 100));
    }
    scraper.attach(metricsPort);
    const idleBefore = await sampler.idle(Math.min(5, o.windowS) * 1000);
    const before = await scraper.baseline();
    const cost = Object.entries(before.perScrape).filter(([, v]) => v > 0).map(([m, v]) => `${m} ${v}`);
    say(`   a scrape costs the controller ${cost.join(", ") || "no"} requests (reviews), left out below`);

    await using client = new KubeClient(
      await loadConfig({ kubeconfig: plane.kubeconfig, env: () => undefined }),
    );
    const foos = Array.from({ length: n }, (_, i) => foo(i));
    const pods = foos.reduce((sum, f) => sum + f.spec.replicas, 0);
    say(`   creating ${n} Foos (${pods} replicas in all)`);
    const burst = sampler.startBurst();
    const started = performance.now();
    let next = 0;
    const creator = async () => {
      for (let i = next++; i < n; i = next++) await client.create(FOOS, foos[i]!);
    };
    await Promise.all(Array.from({ length: 8 }, creator));
    say(
      `   created in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s; waiting until every Foo is Ready`,
    );
    let ready = 0;
    let lastReport = 0;
    while ((ready = await countReady(client)) < n) {
      const elapsed = performance.now() - started;
      if (elapsed > READY_TIMEOUT_MS) throw new Error(`only ${ready}/${n} Foos Ready after ${elapsed} ms`);
      if (elapsed - lastReport > 10_000) {
        say(`   ${(elapsed / 1000).toFixed(0)} s: ${ready}/${n} Ready`);
        lastReport = elapsed;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const readySeconds = (performance.now() - started) / 1000;
    const burstStats = burst.stop();
    say(`   all ${n} Ready after ${readySeconds.toFixed(1)} s; settling, then measuring idle`);
    const delta = requestsBetween(before.counts, await scraper.scrape(), before.perScrape);
    await new Promise((r) => setTimeout(r, o.settleS * 1000));
    const idleAfter = await sampler.idle(o.windowS * 1000);

    const running = JSON.parse(
      await kubectl(["get", "pods", "-n", NAMESPACE, "--field-selector=status.phase=Running", "-o", "json"]),
    ) as { items: unknown[] };
    if (running.items.length !== pods) {
      throw new Error(`expected ${pods} Running Pods, found ${running.items.length}`);
    }

    return {
      foos: n,
      pods,
      readySeconds,
      idleBefore,
      burst: burstStats,
      idleAfter,
      requestsPerFoo: total(delta) / n,
      requestsByMethod: delta,
    };
  } finally {
    sampler.close();
    try {
      controller.kill("SIGTERM");
    } catch { /* already gone */ }
    await controller.status;
  }
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      "default-limits": { type: "boolean", default: false },
      settle: { type: "string", default: "10" },
      window: { type: "string", default: "10" },
    },
  });
  const sizes = positionals.length ? positionals.map(Number) : [100, 1000];
  if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 10_000)) {
    throw new RangeError(`Sizes must be integers in 1..10000, got ${positionals.join(" ")}`);
  }
  const seconds = (name: "settle" | "window", min: number) => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < min) throw new RangeError(`--${name} must be >= ${min} seconds`);
    return value;
  };
  const options = {
    defaultLimits: values["default-limits"],
    settleS: seconds("settle", 0),
    windowS: seconds("window", 0.1),
  };
  const results: ScaleResult[] = [];
  for (const n of sizes) results.push(await scenario(n, options));
  Deno.stdout.writeSync(new TextEncoder().encode(report(results)));
}
