/**
 * Failover bench: two replicas of the reference controller (main.ts, run as deno.json's "start" task runs
 * it, in-cluster mode with a service-account token, `--leader-elect`) on the local control plane with N Foos
 * (and the N Deployments the first leader creates). The leader is SIGKILLed; measured is the time from the
 * kill to the new leader's first reconcile (its first "Synced" debug line), split into the kill to its
 * "Became leader" line (the Lease must expire first: 15 s by default, whatever the mode) and from there to
 * the first reconcile (what a warm cache saves). Per mode:
 * - `warm`: the standby keeps its informers synced (`--warm-standby`, the default);
 * - `cold`: `--warm-standby=false`, the standby lists only once it leads.
 * Also reported: the standby's RSS before the kill (what a warm standby costs in memory), and the leader's.
 * Each round runs every mode once (interleaved); ratios are medians of per-round ratios against the first
 * mode. Times come from the log lines' own `ts` and the harness' clock at the kill (one machine).
 *
 *   deno run --allow-all bench/failover/run.ts [--n=10000] [--rounds=3] [--modes="warm cold"] [--settle=5]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { KubeClient } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { FOOS } from "../../lib/sample_controller/types.ts";
import { DEPLOYMENTS } from "../../lib/resources/mod.ts";
import { program } from "../controller/programs.ts";
import { foo } from "../peers/configmaps.ts";
import { startControlPlane } from "../_util/control_plane.ts";
import { memory } from "../_util/proc_stats.ts";
import { mb, median, print, progress } from "../_util/stats.ts";
import { type OutputLine, WatchedProcess } from "../_util/watched_process.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "10000" },
    rounds: { type: "string", default: "3" },
    modes: { type: "string", default: "warm cold" },
    settle: { type: "string", default: "5" },
  },
});
const N = Number(opts.n);
const ROUNDS = Number(opts.rounds);
const SETTLE_S = Number(opts.settle);
const modes = opts.modes.split(/\s+/).filter(Boolean);
for (const m of modes) if (m !== "warm" && m !== "cold") throw new Error(`Unknown mode "${m}": warm or cold`);
const NS = "bench-failover";
const repo = new URL("../../", import.meta.url).pathname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

await new Deno.Command(Deno.execPath(), {
  args: ["cache", "--quiet", `--config=${join(repo, "deno.json")}`, join(repo, "main.ts")],
}).output();

// ---- control plane, RBAC, credentials, Foos ---------------------------------------------------------
progress("starting the control plane");
await using cp = await startControlPlane();
await cp.kubectlOk(["apply", "-f", join(repo, "crds/samplecontroller.k8s.io_foos.yaml")]);
await cp.kubectlOk(["wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io"]);
for (const f of ["namespace.yaml", "service_account.yaml", "rbac.yaml"]) {
  await cp.kubectlOk(["apply", "-f", join(repo, "manifests", f)]);
}
await cp.kubectlOk(["create", "namespace", NS]);
const work = await Deno.makeTempDir({ prefix: "kubeloop-bench-failover-" });
// It holds a service-account token: gone however the run ends.
await using _work = { [Symbol.asyncDispose]: () => Deno.remove(work, { recursive: true }) };
const saDir = join(work, "sa");
await Deno.mkdir(saDir);
const token = await cp.kubectlOk([
  "create",
  "token",
  "kubeloop-sample-controller",
  "-n",
  "kubeloop-system",
  "--duration=6h",
]);
await Deno.writeTextFile(join(saDir, "token"), token.trim());
await Deno.copyFile(join(cp.dir, "ca.crt"), join(saDir, "ca.crt"));
await Deno.writeTextFile(join(saDir, "namespace"), "kubeloop-system");
const creds = {
  server: new URL(cp.server),
  kubeloopServiceAccountDir: saDir,
  goTokenFile: "",
  caFile: join(cp.dir, "ca.crt"),
};
await using admin = new KubeClient(await loadConfig({ kubeconfig: cp.kubeconfig, env: () => undefined }));

let started = performance.now();
const batches = Math.ceil(N / 1000);
let nextBatch = 0;
await Promise.all(Array.from({ length: 4 }, async () => {
  for (let b = nextBatch++; b < batches; b = nextBatch++) {
    const items = [];
    for (let i = b * 1000; i < Math.min(N, (b + 1) * 1000); i++) items.push(foo(i, NS));
    await cp.kubectlOk(
      ["create", "-f", "-", "-o", "name"],
      JSON.stringify({ apiVersion: "v1", kind: "List", items }),
    );
  }
}));
progress(`created ${N} Foos in ${((performance.now() - started) / 1000).toFixed(0)} s`);

// ---- replicas ---------------------------------------------------------------------------------------
let replicas = 0;

/** Starts a replica of the reference controller; `readyz` is its readiness URL. */
async function replica(mode: string): Promise<{ proc: WatchedProcess; readyz: string }> {
  const p = await program("kubeloop", creds, "");
  if (p.ready.kind !== "readyz") throw new Error("the reference controller serves /readyz");
  const name = `replica-${++replicas}-${mode}`;
  const args = [...p.args, "--leader-elect", `--warm-standby=${mode === "warm"}`, "--log-level=debug"];
  return { proc: new WatchedProcess(name, p.command, args, p.env), readyz: p.ready.url };
}

async function waitReady(url: string, proc: WatchedProcess): Promise<void> {
  const deadline = performance.now() + 300_000;
  while (performance.now() < deadline) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(50);
  }
  throw new Error(`${proc.name} not ready within 300 s:\n${proc.tail()}`);
}

/** The epoch ms of a JSON log line's `ts`. */
function ts(line: OutputLine): number {
  return Date.parse((JSON.parse(line.text) as { ts: string }).ts);
}
const BECAME_LEADER = /"msg":"Became leader"/;
const SYNCED = /"msg":"Synced"/;

/** Waits until every Foo has a status and its Deployment exists: the first leader's start-up work. */
async function converged(): Promise<void> {
  const deadline = performance.now() + 900_000;
  for (;;) {
    const deployments = await admin.list(DEPLOYMENTS, { namespace: NS });
    const foos = await admin.list(FOOS, { namespace: NS });
    if (deployments.items.length >= N && foos.items.every((f) => f.status?.availableReplicas !== undefined)) {
      return;
    }
    if (performance.now() > deadline) throw new Error("the Foos did not converge within 900 s");
    await sleep(1000);
  }
}

// ---- one failover -----------------------------------------------------------------------------------
interface Run {
  mode: string;
  round: number;
  toLeaderMs: number;
  toReconcileMs: number;
  afterAcquireMs: number;
  standbyRss: number;
  leaderRss: number;
}

async function failover(mode: string, round: number): Promise<Run> {
  const a = await replica(mode);
  let b: Awaited<ReturnType<typeof replica>> | undefined;
  /** Turns the exit of a replica before its line into a ReplicaExited naming its last error. */
  const exited = (which: string, proc: WatchedProcess) => (error: unknown): never => {
    if (!(error instanceof Error) || !/exited before/.test(error.message)) throw error;
    const last = proc.tail(200).split("\n").reverse().find((l) => /"level":"error"/.test(l));
    const msg = last ? (JSON.parse(last) as { msg?: string }).msg : "no error line";
    throw new ReplicaExited(`the ${which} exited: ${msg}`);
  };
  try {
    await a.proc.waitFor(BECAME_LEADER, { timeoutMs: 120_000 }).catch(exited("first leader", a.proc));
    await a.proc.waitFor(SYNCED, { timeoutMs: 300_000 }).catch(exited("first leader", a.proc));
    if (round === 1 && mode === modes[0]) {
      started = performance.now();
      await converged();
      progress(
        `the first leader converged ${N} Foos in ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }
    b = await replica(mode);
    await waitReady(b.readyz, b.proc); // warm: its caches synced; cold: at once
    await sleep(SETTLE_S * 1000);
    const standbyRss = memory(b.proc.pid).rss;
    const leaderRss = memory(a.proc.pid).rss;
    const mark = b.proc.seq;
    const killedAt = Date.now();
    a.proc.kill("SIGKILL");
    const leader = await b.proc.waitFor(BECAME_LEADER, { timeoutMs: 120_000, after: mark })
      .catch(exited("new leader", b.proc));
    const first = await b.proc.waitFor(SYNCED, { timeoutMs: 300_000, after: leader.seq })
      .catch(exited("new leader", b.proc));
    const run = {
      mode,
      round,
      toLeaderMs: ts(leader) - killedAt,
      toReconcileMs: ts(first) - killedAt,
      afterAcquireMs: ts(first) - ts(leader),
      standbyRss,
      leaderRss,
    };
    progress(
      `round ${round} ${mode}: kill -> leader ${run.toLeaderMs} ms, -> first reconcile ${run.toReconcileMs} ms ` +
        `(${run.afterAcquireMs} ms after acquiring); standby RSS ${mb(standbyRss)} MB, leader ${
          mb(leaderRss)
        } MB`,
    );
    return run;
  } finally {
    a.proc.kill("SIGKILL");
    await a.proc.stop();
    if (b) await b.proc.stop(60_000); // SIGTERM releases the Lease
    // Gone in any case (a replica that had to be killed left it held), so the next round's first replica
    // leads at once.
    await cp.kubectlOk([
      "delete",
      "lease",
      "kubeloop-sample-controller",
      "-n",
      "kubeloop-system",
      "--ignore-not-found",
    ]);
  }
}

/** A replica that exited before it was measured: why, from its last error line. */
class ReplicaExited extends Error {}
/** Failed attempts, by mode and why; each is retried (at most 3 attempts per mode and round). */
const failures: string[] = [];

const runs: Run[] = [];
for (let r = 1; r <= ROUNDS; r++) {
  for (const m of modes) {
    for (let attempt = 1;; attempt++) {
      try {
        runs.push(await failover(m, r));
        break;
      } catch (error) {
        if (!(error instanceof ReplicaExited) || attempt === 3) throw error;
        failures.push(`round ${r} ${m}: ${error.message}`);
        progress(`round ${r} ${m}: attempt ${attempt} failed, again: ${error.message}`);
      }
    }
  }
}

// ---- report -----------------------------------------------------------------------------------------
const base = modes[0]!;
const med = (m: string, f: (r: Run) => number) => median(runs.filter((r) => r.mode === m).map(f));
const ratio = (m: string, f: (r: Run) => number) => {
  const per: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const x = runs.find((y) => y.mode === m && y.round === r);
    const y = runs.find((z) => z.mode === base && z.round === r);
    if (x && y) per.push(f(x) / Math.max(1, f(y)));
  }
  return median(per).toFixed(2);
};
print();
print(
  `Failover: ${N} Foos (and their Deployments), two replicas, leader SIGKILLed; median of ${ROUNDS} ` +
    `interleaved rounds, ${new Date().toISOString().slice(0, 10)}`,
);
print();
print(
  `| standby | kill to new leader (ms) | leader to first reconcile (ms) | kill to first reconcile (ms) | ` +
    `standby RSS (MB) | leader RSS (MB) | after acquiring vs ${base} | kill to reconcile vs ${base} |`,
);
print("|---|---:|---:|---:|---:|---:|---:|---:|");
for (const m of modes) {
  print(
    `| ${m} | ${med(m, (r) => r.toLeaderMs).toFixed(0)} | ${med(m, (r) => r.afterAcquireMs).toFixed(0)} | ${
      med(m, (r) => r.toReconcileMs).toFixed(0)
    } | ${mb(med(m, (r) => r.standbyRss))} | ${mb(med(m, (r) => r.leaderRss))} | ${
      ratio(m, (r) => r.afterAcquireMs)
    }x | ${ratio(m, (r) => r.toReconcileMs)}x |`,
  );
}
print();
print(
  "The Lease (15 s, renewed every 2 s) must expire before the standby may take over, whatever the mode. " +
    "Ratios are medians of per-round ratios. Raw runs (mode, round, kill to leader / to first reconcile / " +
    "after acquiring ms, standby / leader RSS MB):",
);
print();
for (const r of runs) {
  print(
    `    ${r.mode} ${r.round} ${r.toLeaderMs} ${r.toReconcileMs} ${r.afterAcquireMs} ${mb(r.standbyRss)} ${
      mb(r.leaderRss)
    }`,
  );
}
if (failures.length > 0) {
  print();
  print(`Attempts that failed and were run again (${failures.length}):`);
  print();
  for (const f of failures) print(`    ${f}`);
}
