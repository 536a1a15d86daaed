/**
 * Priority bench: N Foos exist; a controller starts, and while the reconciles of its initial list run, one
 * more Foo is created. Measured: the time from that create until the Foo is reconciled (its status written,
 * as seen by a watch of the harness). Real changes first (kubeloop's default, controller-runtime's priority
 * queue) reconcile it after about one reconcile; a FIFO queue after the rest of the start-up backlog.
 *
 * Programs (the same reconcile: read the Foo from the cache, one JSON merge patch of its status, one worker,
 * no client-side rate limit):
 * - `kubeloop`: bench/priority/kubeloop_status.ts, real changes first (the default);
 * - `kubeloop-fifo`: the same with `prioritizeChanges: false`;
 * - `controller-runtime`: bench/peers/controller_runtime (v0.25.3, its default priority queue);
 * - `controller-runtime-fifo`: the same with `UsePriorityQueue: false`.
 * Each round runs every program once, in order (interleaved); the ratios are medians of per-round ratios
 * against the first program. Credentials: a service-account token and the CA, as in a pod (`--auth=cert`:
 * the admin client certificate). Before the rounds every Foo gets its status once, so every measured
 * reconcile is the same no-op write for the server (a patch that changes nothing is not stored).
 *
 *   deno run --allow-all bench/priority/run.ts [--n=10000] [--rounds=5] [--warmup=1] [--delay-ms=1000]
 *     [--programs="kubeloop kubeloop-fifo controller-runtime"] [--auth=token|cert]
 */
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { Informer } from "../../lib/cache/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { type Foo, FOOS } from "../../lib/sample_controller/types.ts";
import { foo } from "../peers/configmaps.ts";
import { startControlPlane } from "../_util/control_plane.ts";
import { tokenKubeconfig } from "../_util/token_kubeconfig.ts";
import { median, print, progress } from "../_util/stats.ts";
import { WatchedProcess } from "../_util/watched_process.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "10000" },
    rounds: { type: "string", default: "5" },
    warmup: { type: "string", default: "1" },
    "delay-ms": { type: "string", default: "1000" },
    programs: { type: "string", default: "kubeloop kubeloop-fifo controller-runtime" },
    auth: { type: "string", default: "token" },
  },
});
const N = Number(opts.n);
const ROUNDS = Number(opts.rounds);
const WARMUP = Number(opts.warmup);
const DELAY_MS = Number(opts["delay-ms"]);
const programs = opts.programs.split(/\s+/).filter(Boolean);
const NS = "bench-priority";
const here = new URL(".", import.meta.url).pathname;
const repo = new URL("../../", import.meta.url).pathname;
const cache = Deno.env.get("KUBELOOP_BENCH_CACHE") ??
  join(Deno.env.get("HOME") ?? "/root", ".cache/kubeloop-bench");
const crBinary = join(cache, "controller-runtime-status");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- builds -----------------------------------------------------------------------------------------
await Deno.mkdir(cache, { recursive: true });
if (programs.some((p) => p.startsWith("controller-runtime"))) {
  progress("go: building the controller-runtime peer (bench/peers/controller_runtime)");
  const started = performance.now();
  const built = await new Deno.Command("go", {
    args: ["build", "-trimpath", "-o", crBinary, "."],
    cwd: join(repo, "bench/peers/controller_runtime"),
    env: { GOWORK: "off", GOTOOLCHAIN: "local", CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" },
    stderr: "inherit",
  }).output();
  if (!built.success) throw new Error("go build of the controller-runtime peer failed");
  progress(`go: built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
await new Deno.Command(Deno.execPath(), { args: ["cache", "--quiet", join(here, "kubeloop_status.ts")] })
  .output();
const config = JSON.parse(await Deno.readTextFile(join(repo, "deno.json"))) as {
  tasks: Record<string, string>;
};
const v8Flags = (config.tasks["start"] ?? "").split(/\s+/).filter((w) => w.startsWith("--v8-flags"));

function command(program: string, kubeconfig: string): [string, string[]] {
  const kubeloop = (...extra: string[]): [string, string[]] => [Deno.execPath(), [
    "run",
    "--quiet",
    ...v8Flags,
    "--allow-net=127.0.0.1",
    "--allow-read",
    "--allow-env=KUBECONFIG,HOME,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT,KUBELOOP_BENCH_T0_MS",
    "--ignore-env=LOG_TOKENS,LOG_STREAM",
    join(here, "kubeloop_status.ts"),
    NS,
    ...extra,
  ]];
  const cr = (...extra: string[]): [string, string[]] => [
    crBinary,
    [`-kubeconfig=${kubeconfig}`, `-namespace=${NS}`, ...extra],
  ];
  switch (program) {
    case "kubeloop":
      return kubeloop();
    case "kubeloop-fifo":
      return kubeloop("--priority=false");
    case "controller-runtime":
      return cr();
    case "controller-runtime-fifo":
      return cr("-priority-queue=false");
    default:
      throw new Error(`Unknown program "${program}"`);
  }
}

// ---- control plane and Foos -------------------------------------------------------------------------
progress("starting the control plane");
await using cp = await startControlPlane();
await cp.kubectlOk(["apply", "-f", join(repo, "crds/samplecontroller.k8s.io_foos.yaml")]);
await cp.kubectlOk(["wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io"]);
await cp.kubectlOk(["create", "namespace", NS]);
if (opts.auth !== "token" && opts.auth !== "cert") {
  throw new Error(`--auth=${opts.auth}: expected token or cert`);
}
const kubeconfig = opts.auth === "token" ? await tokenKubeconfig(cp, NS, "bench-priority") : cp.kubeconfig;
// A token kubeconfig holds a credential: gone however the run ends.
await using _auth = {
  [Symbol.asyncDispose]: () =>
    opts.auth === "token" ? Deno.remove(dirname(kubeconfig), { recursive: true }) : Promise.resolve(),
};
await using admin = new KubeClient(await loadConfig({ kubeconfig: cp.kubeconfig, env: () => undefined }));

/** Runs `task(i)` for i in [0, n), `width` at a time. */
async function pool(n: number, width: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) await task(i);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

let started = performance.now();
await pool(Math.ceil(N / 1000), 4, (b) => {
  const items = [];
  for (let i = b * 1000; i < Math.min(N, (b + 1) * 1000); i++) items.push(foo(i, NS));
  return cp.kubectlOk(
    ["create", "-f", "-", "-o", "name"],
    JSON.stringify({ apiVersion: "v1", kind: "List", items }),
  );
});
progress(`created ${N} Foos in ${((performance.now() - started) / 1000).toFixed(0)} s`);
started = performance.now();
await pool(N, 16, (i) => {
  const f = foo(i, NS) as { metadata: { name: string }; spec: { replicas: number } };
  const patch = { status: { availableReplicas: f.spec.replicas } };
  return admin.patch(FOOS, f.metadata.name, patch, { namespace: NS, type: "merge", subresource: "status" });
});
progress(`wrote every status once in ${((performance.now() - started) / 1000).toFixed(0)} s`);

// ---- one measurement --------------------------------------------------------------------------------
interface Run {
  program: string;
  round: number;
  syncedMs: number;
  probeMs: number;
}

/** Starts `program`, creates the probe Foo `DELAY_MS` after it synced, and times its reconcile. */
async function measure(program: string, round: number): Promise<Run> {
  const name = `probe-${round}-${program}`;
  const probe = new Informer<Foo>(admin, FOOS, { namespace: NS, fieldSelector: `metadata.name=${name}` });
  const reconciled = Promise.withResolvers<number>();
  probe.subscribe({
    onUpdate: (_, f) =>
      void (f.status?.availableReplicas !== undefined && reconciled.resolve(performance.now())),
  });
  const stopProbe = new AbortController();
  const watching = probe.run({ signal: stopProbe.signal });
  await probe.ready();
  const [cmd, args] = command(program, kubeconfig);
  let probeCreated = false;
  const t0 = Date.now();
  const proc = new WatchedProcess(program, cmd, args, {
    KUBECONFIG: kubeconfig,
    HOME: "/nonexistent",
    DENO_NO_UPDATE_CHECK: "1",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
    KUBELOOP_BENCH_T0_MS: String(t0),
  });
  try {
    const synced = await proc.waitFor(/^synced \d+$/, { timeoutMs: 300_000 });
    const syncedMs = Number(synced.text.split(" ")[1]);
    await sleep(DELAY_MS);
    const created = performance.now();
    await admin.create(FOOS, { ...foo(0, NS), metadata: { name, namespace: NS } } as unknown as Foo);
    probeCreated = true;
    const timeout = setTimeout(
      () => reconciled.reject(new Error(`${program}: ${name} not reconciled in 600 s`)),
      600_000,
    );
    const probeMs = (await reconciled.promise) - created;
    clearTimeout(timeout);
    progress(
      `${round === 0 ? "warm-up" : `round ${round}`} ${program}: synced ${syncedMs} ms, ` +
        `new Foo reconciled ${probeMs.toFixed(0)} ms after its create`,
    );
    return { program, round, syncedMs, probeMs };
  } finally {
    const status = await proc.stop();
    if (!status.success && status.signal !== "SIGTERM") {
      progress(`${program} exited ${status.code}:\n${proc.tail(10)}`);
    }
    stopProbe.abort();
    await watching;
    if (probeCreated) await admin.delete(FOOS, name, { namespace: NS });
  }
}

const runs: Run[] = [];
for (let r = 0; r < WARMUP; r++) for (const p of programs) await measure(p, 0);
for (let r = 1; r <= ROUNDS; r++) for (const p of programs) runs.push(await measure(p, r));

// ---- report -----------------------------------------------------------------------------------------
const base = programs[0]!;
const of = (p: string) => runs.filter((r) => r.program === p);
const ratio = (p: string) => {
  const per: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const a = runs.find((x) => x.program === p && x.round === r);
    const b = runs.find((x) => x.program === base && x.round === r);
    if (a && b) per.push(a.probeMs / b.probeMs);
  }
  return median(per);
};
print();
print(
  `Priority: ${N} Foos, one more created ${DELAY_MS} ms after the controller synced; median of ${ROUNDS} ` +
    `interleaved rounds, ${new Date().toISOString().slice(0, 10)}`,
);
print();
print(`| program | new Foo reconciled after (ms) | min | max | time to synced (ms) | vs ${base} |`);
print("|---|---:|---:|---:|---:|---:|");
for (const p of programs) {
  const ms = of(p).map((r) => r.probeMs);
  print(
    `| ${p} | ${median(ms).toFixed(0)} | ${Math.min(...ms).toFixed(0)} | ${Math.max(...ms).toFixed(0)} | ${
      median(of(p).map((r) => r.syncedMs)).toFixed(0)
    } | ${ratio(p).toFixed(2)}x |`,
  );
}
print();
print("Ratios are medians of per-round ratios. Raw runs (program, round, synced ms, new Foo reconciled ms):");
print();
for (const r of runs) print(`    ${r.program} ${r.round} ${r.syncedMs} ${r.probeMs.toFixed(1)}`);
