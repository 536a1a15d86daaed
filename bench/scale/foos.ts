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
 *
 * The controller runs as `deno task start` would, with its defaults (2 workers, no client-side rate limit),
 * out-of-cluster with the admin kubeconfig. Each N gets its own control plane, so sizes do not share load.
 * kube-controller-manager and kube-scheduler run without their client-side rate limits (testenv
 * -unlimited-qps; 20 and 50 requests/s by default), as scale tests of a cluster usually do; otherwise the
 * ReplicaSet controller's Pod creation at 20/s sets the pace. `--default-limits` keeps them.
 * @module
 */
import { join } from "node:path";
import { KubeClient } from "../../lib/client/mod.ts";
import { type KubeObject } from "../../lib/resources/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { FOOS } from "../../lib/sample_controller/mod.ts";
import { freePort, startTaskFlags } from "../../tests/_util/start_task.ts";
import { startOwnedTestEnv } from "../../tests/_util/testenv_process.ts";
import { ProcessSampler } from "./process_sampler.ts";

const root = new URL("../../", import.meta.url).pathname;
const NAMESPACE = "scale";
const READY_TIMEOUT_MS = 30 * 60_000;

/** What one size measured. */
export interface ScaleResult {
  foos: number;
  pods: number;
  readySeconds: number;
  idleBefore: { rssMiB: number; cpuPercent: number };
  burst: { peakRssMiB: number; cpuSeconds: number; cpuPercent: number };
  idleAfter: { rssMiB: number; cpuPercent: number };
  requestsPerFoo: number;
  requestsByMethod: Record<string, number>;
}

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

/** Sums `rest_client_requests_total` by method from a Prometheus text exposition. */
function requestsByMethod(metrics: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of metrics.split("\n")) {
    const m = /^rest_client_requests_total\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const method = /method="([^"]*)"/.exec(m[1] ?? "")?.[1] ?? "?";
    out[method] = (out[method] ?? 0) + Number(m[2]);
  }
  return out;
}

function total(byMethod: Record<string, number>): number {
  return Object.values(byMethod).reduce((a, b) => a + b, 0);
}

async function scenario(n: number, defaultLimits: boolean): Promise<ScaleResult> {
  say(`== ${n} Foos: starting a control plane with 10 simulated nodes`);
  await using plane = await startOwnedTestEnv(
    defaultLimits ? ["-nodes=10"] : ["-nodes=10", "-unlimited-qps"],
  );
  const kubectl = (args: string[], stdin?: string) =>
    run(plane.kubectl, [`--kubeconfig=${plane.kubeconfig}`, ...args], stdin);
  await kubectl(["apply", "-f", join(root, "crds", "samplecontroller.k8s.io_foos.yaml")]);
  await kubectl(["wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io", "--timeout=60s"]);
  await kubectl(["create", "namespace", NAMESPACE]);

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
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const idleBefore = await sampler.idle(5_000);
    const before = requestsByMethod(await (await fetch(metricsUrl)).text());

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
    const after = requestsByMethod(await (await fetch(metricsUrl)).text());
    await new Promise((r) => setTimeout(r, 10_000));
    const idleAfter = await sampler.idle(10_000);

    const running = JSON.parse(
      await kubectl(["get", "pods", "-n", NAMESPACE, "--field-selector=status.phase=Running", "-o", "json"]),
    ) as { items: unknown[] };
    if (running.items.length !== pods) {
      throw new Error(`expected ${pods} Running Pods, found ${running.items.length}`);
    }

    const delta: Record<string, number> = {};
    for (const [method, count] of Object.entries(after)) delta[method] = count - (before[method] ?? 0);
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

function table(results: ScaleResult[]): string {
  const f1 = (x: number) => x.toFixed(1);
  const rows = [
    "RSS in MiB; CPU as seconds used (and % of one core) during the burst, % of one core when idle afterwards.",
    "",
    "| Foos | Pods | all Ready (s) | RSS before | RSS peak | RSS after | CPU burst | CPU after | requests per Foo |",
    "|---:|---:|---:|---:|---:|---:|---|---:|---|",
  ];
  for (const r of results) {
    const methods = Object.entries(r.requestsByMethod).filter(([, v]) => v > 0)
      .map(([m, v]) => `${m} ${(v / r.foos).toFixed(2)}`).join(", ");
    rows.push(
      `| ${r.foos} | ${r.pods} | ${f1(r.readySeconds)} | ${f1(r.idleBefore.rssMiB)} | ${
        f1(r.burst.peakRssMiB)
      } | ` +
        `${f1(r.idleAfter.rssMiB)} | ${f1(r.burst.cpuSeconds)} (${f1(r.burst.cpuPercent)} %) | ` +
        `${f1(r.idleAfter.cpuPercent)} % | ${r.requestsPerFoo.toFixed(2)} (${methods}) |`,
    );
  }
  return rows.join("\n");
}

if (import.meta.main) {
  const defaultLimits = Deno.args.includes("--default-limits");
  const args = Deno.args.filter((a) => a !== "--default-limits");
  const sizes = args.length ? args.map(Number) : [100, 1000];
  if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 10_000)) {
    throw new RangeError(
      `Sizes must be integers in 1..10000 (or --default-limits), got ${Deno.args.join(" ")}`,
    );
  }
  const results: ScaleResult[] = [];
  for (const n of sizes) results.push(await scenario(n, defaultLimits));
  Deno.stdout.writeSync(new TextEncoder().encode(table(results) + "\n"));
  const first = results[0]!;
  const last = results.at(-1)!;
  if (results.length > 1) {
    const ratio = (a: number, b: number) => (b / a).toFixed(2);
    Deno.stdout.writeSync(
      new TextEncoder().encode(
        `\n${first.foos} -> ${last.foos} Foos (x${last.foos / first.foos}): time until Ready x${
          ratio(first.readySeconds, last.readySeconds)
        }, peak RSS x${ratio(first.burst.peakRssMiB, last.burst.peakRssMiB)}, idle RSS after x${
          ratio(first.idleAfter.rssMiB, last.idleAfter.rssMiB)
        }, CPU seconds x${ratio(first.burst.cpuSeconds, last.burst.cpuSeconds)}, requests per Foo x${
          ratio(first.requestsPerFoo, last.requestsPerFoo)
        }\n`,
      ),
    );
  }
}
