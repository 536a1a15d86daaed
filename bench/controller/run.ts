/**
 * Controller-level bench: the reference controller (main.ts, run exactly as deno.json's "start" task
 * runs it, in in-cluster mode with a service-account token) and our Go stand-in for sample-controller,
 * against the local control plane, in interleaved rounds. Each run: start the program, wait until its
 * caches synced, create N Foos at once (16 concurrent creates), wait until every Foo has its Deployment
 * and a status, let it settle, then measure over an idle window.
 *
 * Reported per program (medians over the rounds): time to ready, convergence time (first create to
 * the last Foo converged), RSS when ready, idle RSS (median of 1 s samples in the window), peak RSS
 * (the kernel's high-water mark, start-up included), peak / idle, idle CPU (user + sys over the window,
 * in % of one core).
 *
 *   deno run --allow-all bench/controller/run.ts [--n=100] [--rounds=3] [--warmup=1] [--settle=15]
 *     [--window=30] [--programs="kubeloop go"]
 *
 * Programs: see programs.ts (`kubeloop`, `kubeloop@DIR`, `kubeloop+V8FLAGS`, `go`).
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { KubeClient } from "../../lib/client/mod.ts";
import type { KubeObject } from "../../lib/resources/object.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { FOOS } from "../../lib/sample_controller/types.ts";
import { DEPLOYMENTS } from "../../lib/resources/mod.ts";
import { startControlPlane } from "../_util/control_plane.ts";
import { cpuMsBetween, cpuTime, memory } from "../_util/proc_stats.ts";
import { mb, median, print, progress } from "../_util/stats.ts";
import { type Credentials, type Program, program } from "./programs.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "100" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "1" },
    settle: { type: "string", default: "15" },
    window: { type: "string", default: "30" },
    programs: { type: "string", default: "kubeloop go" },
    json: { type: "string" },
  },
});
const N = Number(opts.n);
const ROUNDS = Number(opts.rounds);
const WARMUP = Number(opts.warmup);
const SETTLE_S = Number(opts.settle);
const WINDOW_S = Number(opts.window);
const specs = opts.programs.split(/\s+/).filter(Boolean);
const NS = "bench-controller";
const repo = new URL("../../", import.meta.url).pathname;
const cache = Deno.env.get("KUBELOOP_BENCH_CACHE") ??
  join(Deno.env.get("HOME") ?? "/root", ".cache/kubeloop-bench");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One measured run. */
interface Run {
  program: string;
  round: number;
  readyMs: number;
  convergeMs: number;
  readyRss: number;
  idleRss: number;
  idleAnon: number;
  idleFile: number;
  peakRss: number;
  idleCpuPct: number;
}

async function buildGo(): Promise<string> {
  const out = join(cache, "go-sample-controller");
  progress("go: building the Go stand-in (bench/peers/client_go/sample_controller)");
  const r = await new Deno.Command("go", {
    args: ["build", "-trimpath", "-o", out, "./sample_controller"],
    cwd: join(repo, "bench/peers/client_go"),
    env: { GOWORK: "off", GOTOOLCHAIN: "local", CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" },
    stderr: "inherit",
  }).output();
  if (!r.success) throw new Error("go build failed");
  return out;
}

await Deno.mkdir(cache, { recursive: true });
const goBinary = specs.includes("go") ? await buildGo() : "";
for (const spec of specs) {
  const dir = spec.match(/^kubeloop@([^+]+)/)?.[1];
  if (spec.startsWith("kubeloop")) {
    const root = dir ?? repo;
    await new Deno.Command(Deno.execPath(), {
      args: ["cache", "--quiet", `--config=${join(root, "deno.json")}`, join(root, "main.ts")],
    }).output();
  }
}

progress("starting the control plane");
await using cp = await startControlPlane();
const admin = new KubeClient(await loadConfig({ kubeconfig: cp.kubeconfig, env: () => undefined }));
await cp.kubectlOk(["apply", "-f", join(repo, "crds/samplecontroller.k8s.io_foos.yaml")]);
await cp.kubectlOk(["wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io"]);
for (const f of ["namespace.yaml", "service_account.yaml", "rbac.yaml"]) {
  await cp.kubectlOk(["apply", "-f", join(repo, "manifests", f)]);
}
await cp.kubectlOk(["create", "namespace", NS]);
await cp.kubectlOk(["create", "serviceaccount", "go-sample-controller", "-n", "kubeloop-system"]);
await cp.kubectlOk([
  "create",
  "clusterrolebinding",
  "go-sample-controller",
  "--clusterrole=cluster-admin",
  "--serviceaccount=kubeloop-system:go-sample-controller",
]);
const work = await Deno.makeTempDir({ prefix: "kubeloop-bench-controller-" });
const saDir = join(work, "sa");
await Deno.mkdir(saDir);
const token = async (sa: string) =>
  (await cp.kubectlOk(["create", "token", sa, "-n", "kubeloop-system", "--duration=6h"])).trim();
await Deno.writeTextFile(join(saDir, "token"), await token("kubeloop-sample-controller"));
await Deno.copyFile(join(cp.dir, "ca.crt"), join(saDir, "ca.crt"));
await Deno.writeTextFile(join(saDir, "namespace"), "kubeloop-system");
await Deno.writeTextFile(join(work, "go-token"), await token("go-sample-controller"));
const creds: Credentials = {
  server: new URL(cp.server),
  kubeloopServiceAccountDir: saDir,
  goTokenFile: join(work, "go-token"),
  caFile: join(cp.dir, "ca.crt"),
};

async function clean(): Promise<void> {
  // One DELETE of each collection: kubectl's per-object deletes took ~20 s for 200 objects.
  for (
    const path of [
      `/apis/samplecontroller.k8s.io/v1alpha1/namespaces/${NS}/foos`,
      `/apis/apps/v1/namespaces/${NS}/deployments`,
      `/apis/events.k8s.io/v1/namespaces/${NS}/events`,
    ]
  ) {
    await cp.kubectlOk(["delete", "--raw", path]);
  }
  for (;;) {
    const foos = await admin.list(FOOS, { namespace: NS });
    const deployments = await admin.list(DEPLOYMENTS, { namespace: NS });
    if (foos.items.length === 0 && deployments.items.length === 0) return;
    await sleep(200);
  }
}

async function createFoos(): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < N; i = next++) {
      const name = `foo-${String(i).padStart(4, "0")}`;
      const foo = {
        apiVersion: "samplecontroller.k8s.io/v1alpha1",
        kind: "Foo",
        metadata: { name, namespace: NS },
        spec: { deploymentName: name, replicas: 1 },
      };
      await admin.create(FOOS, foo as unknown as KubeObject);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

async function converged(): Promise<boolean> {
  const deployments = await admin.list(DEPLOYMENTS, { namespace: NS });
  const owned = deployments.items.filter((d) =>
    d.metadata.ownerReferences?.some((o) => o.kind === "Foo" && o.controller === true)
  );
  if (owned.length < N) return false;
  const foos = await admin.list<KubeObject & { status?: { availableReplicas?: number } }>(FOOS, {
    namespace: NS,
  });
  return foos.items.length === N && foos.items.every((f) => f.status?.availableReplicas !== undefined);
}

async function waitReady(p: Program, lines: () => string, pid: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (p.ready.kind === "stdout") {
      if (/^ready$/m.test(lines())) return;
    } else {
      try {
        const res = await fetch(p.ready.url);
        await res.body?.cancel();
        if (res.ok) return;
      } catch {
        // Not listening yet.
      }
    }
    try {
      Deno.statSync(`/proc/${pid}`);
    } catch {
      throw new Error(`${p.name} exited before it was ready:\n${lines().slice(-3000)}`);
    }
    await sleep(50);
  }
  throw new Error(`${p.name} not ready within 120 s:\n${lines().slice(-3000)}`);
}

async function measure(spec: string, round: number, full: boolean): Promise<Run> {
  await clean();
  const p = await program(spec, creds, goBinary);
  const child = new Deno.Command(p.command, {
    args: p.args,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...p.env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let output = "";
  const keep = (s: ReadableStream<Uint8Array>) =>
    s.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (c) => void (output = (output + c).slice(-65536)) }),
    );
  const drained = Promise.all([keep(child.stdout), keep(child.stderr)]);
  const started = performance.now();
  try {
    await waitReady(p, () => output, child.pid);
    const readyMs = performance.now() - started;
    await sleep(2_000);
    const readyRss = memory(child.pid).rss;
    const t0 = performance.now();
    await createFoos();
    while (!(await converged())) {
      if (performance.now() - t0 > 300_000) throw new Error(`${spec} did not converge in 300 s`);
      await sleep(100);
    }
    const convergeMs = performance.now() - t0;
    let idleRss = NaN, idleCpuPct = NaN, idleAnon = NaN, idleFile = NaN;
    if (full) {
      await sleep(SETTLE_S * 1000);
      const cpu0 = cpuTime(child.pid);
      const w0 = performance.now();
      const samples: ReturnType<typeof memory>[] = [];
      for (let s = 0; s < WINDOW_S; s++) {
        await sleep(1000);
        samples.push(memory(child.pid));
      }
      idleCpuPct = cpuMsBetween(cpu0, cpuTime(child.pid)) / (performance.now() - w0) * 100;
      idleRss = median(samples.map((m) => m.rss));
      idleAnon = median(samples.map((m) => m.anon));
      idleFile = median(samples.map((m) => m.file));
    }
    const peakRss = memory(child.pid).peakRss;
    const run = {
      program: spec,
      round,
      readyMs,
      convergeMs,
      readyRss,
      idleRss,
      idleAnon,
      idleFile,
      peakRss,
      idleCpuPct,
    };
    progress(
      `${round === 0 ? "warm-up" : `round ${round}`} ${spec}: ready ${(readyMs / 1000).toFixed(2)} s, ` +
        `converged ${(convergeMs / 1000).toFixed(2)} s, RSS ready ${mb(readyRss)} idle ${mb(idleRss)} ` +
        `peak ${mb(peakRss)} MB, idle CPU ${idleCpuPct.toFixed(2)} %`,
    );
    return run;
  } finally {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
    }, 60_000);
    await child.status;
    clearTimeout(timer);
    await drained.catch(() => {});
  }
}

const runs: Run[] = [];
for (let r = 0; r < WARMUP; r++) for (const spec of specs) await measure(spec, 0, false);
for (let r = 1; r <= ROUNDS; r++) for (const spec of specs) runs.push(await measure(spec, r, true));
await clean();
await admin[Symbol.asyncDispose]();
await Deno.remove(work, { recursive: true });

const base = specs.includes("go") ? "go" : specs[0]!;
const med = (spec: string, f: (r: Run) => number) => median(runs.filter((r) => r.program === spec).map(f));
print();
print(
  `Controller bench: ${N} Foos, median of ${ROUNDS} interleaved rounds (settle ${SETTLE_S} s, idle window ` +
    `${WINDOW_S} s), ${new Date().toISOString().slice(0, 10)}`,
);
print();
print(
  `| program | ready (s) | converge (s) | RSS ready (MB) | idle RSS (MB) | of which anon / file | peak RSS (MB) | peak / idle | ` +
    `idle CPU (% core) | idle RSS vs ${base} | converge vs ${base} |`,
);
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const spec of specs) {
  const ratio = (f: (r: Run) => number) => {
    const per: number[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const a = runs.find((x) => x.program === spec && x.round === r);
      const b = runs.find((x) => x.program === base && x.round === r);
      if (a && b) per.push(f(a) / f(b));
    }
    return median(per).toFixed(2);
  };
  print(
    `| ${spec} | ${(med(spec, (r) => r.readyMs) / 1000).toFixed(2)} | ${
      (med(spec, (r) => r.convergeMs) / 1000).toFixed(2)
    } | ${mb(med(spec, (r) => r.readyRss))} | ${mb(med(spec, (r) => r.idleRss))} | ${
      mb(med(spec, (r) => r.idleAnon))
    } / ${mb(med(spec, (r) => r.idleFile))} | ${mb(med(spec, (r) => r.peakRss))} | ${
      med(spec, (r) => r.peakRss / r.idleRss).toFixed(2)
    } | ${med(spec, (r) => r.idleCpuPct).toFixed(2)} | ${ratio((r) => r.idleRss)}x | ${
      ratio((r) => r.convergeMs)
    }x |`,
  );
}
print();
print(
  "Ratios are medians of per-round ratios. Raw runs (program, round, ready ms, converge ms, RSS ready / idle " +
    "(anon + file) / peak MB, idle CPU %):",
);
print();
for (const r of runs) {
  print(
    `    ${r.program} ${r.round} ${r.readyMs.toFixed(0)} ${r.convergeMs.toFixed(0)} ${mb(r.readyRss)} ${
      mb(r.idleRss)
    } (${mb(r.idleAnon)} + ${mb(r.idleFile)}) ${mb(r.peakRss)} ${r.idleCpuPct.toFixed(2)}`,
  );
}
if (opts.json) await Deno.writeTextFile(opts.json, JSON.stringify(runs, null, 2));
