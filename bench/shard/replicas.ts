/**
 * Scale-out, side by side in one run: N = 1, 2, 4 replicas of the reference controller (`--shards=16`)
 * over 10,000 Foos and their Deployments, with the API server's shard selector and with client-side
 * hashing (`--shard-selector=client`): each replica's idle RSS and CPU, the API server's CPU, handover after
 * a SIGKILL; then the time to converge 5,000 new Foos at each N.
 *
 *   nice -n 10 deno run --allow-all bench/shard/replicas.ts [--foos=10000] [--burst=5000]
 *
 * Smaller runs: `--counts=2` (replica counts), `--idle=30` (seconds measured idle), `--quiet=15` (seconds
 * without a reconcile before a run counts as started), `--lease=15` (the replicas' lease duration).
 *
 * Prints a JSON line per measurement and a Markdown table at the end (bench/RESULTS.md, "Scale-out").
 * @module
 */
import { startControlPlane } from "../_util/control_plane.ts";
import { cpuMsBetween, cpuTime, memory } from "../_util/proc_stats.ts";
import { type Replica, ShardHarness, waitFor } from "../../tests/e2e/_shard_harness.ts";
import { print } from "../../tests/_util/print.ts";
import { NAMESPACES } from "../../lib/resources/refs.ts";

const arg = (name: string, fallback: number) =>
  Number(Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const FOOS = arg("foos", 10_000);
const BURST = arg("burst", 5_000);
/** The library's defaults: 16 ranges, lease 15 s (renew deadline 10 s, retry 2 s). */
const RANGES = 16;
const COUNTS = (Deno.args.find((a) => a.startsWith("--counts="))?.split("=")[1] ?? "1,2,4").split(",").map(
  Number,
);
const IDLE_MS = arg("idle", 30) * 1000;
const QUIET_MS = arg("quiet", 15) * 1000;
const LEASE_S = arg("lease", 15);

/** The ranges a replica has active now, from its log. */
function activeRanges(r: Replica): Set<number> {
  const active = new Set<number>();
  for (const l of r.lines()) {
    if (l.msg === "Range active") active.add(Number(l.range));
    if (l.msg === "Range given up") active.delete(Number(l.range));
  }
  return active;
}

async function settled(live: readonly Replica[], timeoutMs = 300_000): Promise<void> {
  await waitFor(
    () => {
      const counts = live.map((r) => activeRanges(r).size);
      return counts.reduce((a, b) => a + b, 0) === RANGES && Math.max(...counts) - Math.min(...counts) <= 1;
    },
    timeoutMs,
    () => "ranges did not settle",
    250,
  );
}

/**
 * Waits until the replicas' CPU is steady: two windows in a row within a quarter of each other (or of 1 % of
 * a core). Startup is then over, including the Event writes the recorder sends one at a time after the
 * reconciles (10,000 of them at the first sync); what is left is the steady cost (watches, Lease renewals).
 */
async function idle(live: readonly Replica[], timeoutMs = 900_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const windowMs = Math.min(5_000, QUIET_MS);
  let previous: number | undefined;
  for (;;) {
    const before = live.map((r) => cpuTime(r.pid));
    await new Promise((r) => setTimeout(r, windowMs));
    const used = live.reduce((sum, r, i) => sum + cpuMsBetween(before[i]!, cpuTime(r.pid)), 0);
    if (previous !== undefined && Math.abs(used - previous) <= Math.max(previous / 4, windowMs / 100)) return;
    if (Date.now() > deadline) throw new Error("replicas did not settle");
    previous = used;
  }
}

/** Waits until no replica started a reconcile for `quietMs`. */
async function quiet(live: readonly Replica[], quietMs: number): Promise<void> {
  let last = -1;
  let since = Date.now();
  await waitFor(
    () => {
      const n = live.reduce((a, r) => a + r.lines().filter((l) => l.msg === "Reconcile started").length, 0);
      if (n !== last) {
        last = n;
        since = Date.now();
      }
      return Date.now() - since >= quietMs;
    },
    900_000,
    () => "reconciles did not stop",
    1000,
  );
}

const mib = (bytes: number) => Math.round(bytes / 1048576 * 10) / 10;
const rows: Record<string, unknown>[] = [];
function record(row: Record<string, unknown>): void {
  rows.push(row);
  print(JSON.stringify(row));
}

await using cp = await startControlPlane();
await using h = await ShardHarness.start({ controlPlane: cp });
const args = (mode: "server" | "client") => [
  `--shards=${RANGES}`,
  `--shard-lease-duration=${LEASE_S}`,
  `--shard-selector=${mode === "server" ? "auto" : "client"}`,
];

async function startReplicas(n: number, mode: "server" | "client"): Promise<Replica[]> {
  const live: Replica[] = [];
  for (let i = 0; i < n; i++) live.push(await h.startReplica([...args(mode), "--log-level=debug"]));
  for (const r of live) await h.joined(r);
  await settled(live);
  return live;
}

async function stopAll(live: readonly Replica[]): Promise<void> {
  for (const r of live) r.kill("SIGTERM");
  await Promise.all(live.map((r) => r.exited));
}

// Seed: 10,000 Foos, their Deployments created by four replicas.
{
  const seeders = await startReplicas(4, "server");
  const t0 = Date.now();
  await h.createFoos("foo", FOOS);
  await h.converge(1_800_000);
  record({ phase: "seed", foos: FOOS, ms: Date.now() - t0 });
  await stopAll(seeders);
}

/** RSS (MiB) and CPU (% of a core) of `live` and of kube-apiserver over `IDLE_MS` idle. */
async function measureIdle(live: readonly Replica[]) {
  const before = live.map((r) => cpuTime(r.pid));
  const apiBefore = cpuTime(cp.apiserverPid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const wall = performance.now() - t0;
  return {
    rssMiB: live.map((r) => mib(memory(r.pid).rss)),
    cpuPercent: live.map((r, i) => Math.round(cpuMsBetween(before[i]!, cpuTime(r.pid)) / wall * 1000) / 10),
    apiserverCpuPercent: Math.round(cpuMsBetween(apiBefore, cpuTime(cp.apiserverPid)) / wall * 1000) / 10,
  };
}

// Fixed cost: one replica whose namespace holds nothing (its caches are empty; it still claims every range).
{
  await h.client.create(NAMESPACES, { metadata: { name: "empty" } });
  const alone = await h.startReplica([...args("server"), "--namespace=empty", "--shard-group=empty"]);
  await h.joined(alone);
  await settled([alone]);
  await idle([alone]);
  record({ phase: "idle", mode: "empty namespace", n: 1, ...await measureIdle([alone]), keys: [0] });
  await stopAll([alone]);
}

for (const mode of ["server", "client"] as const) {
  for (const n of COUNTS) {
    const started = Date.now();
    const live = await startReplicas(n, mode);
    await quiet(live, QUIET_MS);
    const startupMs = Date.now() - started;
    await idle(live);
    // Idle: 30 s of nothing but watches and Lease renewals.
    const measured = await measureIdle(live);
    const keys = live.map((r) =>
      new Set(r.lines().filter((l) => l.msg === "Reconcile started").map((l) => l.key)).size
    );
    // Handover: a graceful leave (SIGTERM: drain, release), then with 4 a SIGKILL (the lease expires).
    let leaveMs: number | undefined;
    let killMs: number | undefined;
    let remaining = live;
    if (n > 1) {
      const leaving = remaining.at(-1)!;
      remaining = remaining.slice(0, -1);
      const t = Date.now();
      leaving.kill("SIGTERM");
      await settled(remaining);
      leaveMs = Date.now() - t;
      await leaving.exited;
    }
    if (n > 2) {
      const victim = remaining.at(-1)!;
      remaining = remaining.slice(0, -1);
      victim.kill("SIGKILL");
      await victim.exited;
      const t = Date.now();
      await settled(remaining);
      killMs = Date.now() - t;
    }
    record({ phase: "idle", mode, n, startupMs, ...measured, keys, leaveMs, killMs });
    await stopAll(remaining);
  }
}

// Bursts: 5,000 new Foos at each N (server mode). Earlier bursts' Foos stay: the base grows by 5,000 each time.
for (const n of COUNTS) {
  const live = await startReplicas(n, "server");
  await quiet(live, QUIET_MS);
  const before = live.map((r) => cpuTime(r.pid));
  const apiBefore = cpuTime(cp.apiserverPid);
  const t0 = Date.now();
  await h.createFoos(`burst${n}`, BURST);
  const createdMs = Date.now() - t0;
  await h.converge(1_800_000);
  const convergeMs = Date.now() - t0;
  const cpuS = live.map((r, i) => Math.round(cpuMsBetween(before[i]!, cpuTime(r.pid)) / 100) / 10);
  const apiCpuS = Math.round(cpuMsBetween(apiBefore, cpuTime(cp.apiserverPid)) / 100) / 10;
  record({
    phase: "burst",
    n,
    foos: BURST,
    createdMs,
    convergeMs,
    replicaCpuSeconds: cpuS,
    apiserverCpuSeconds: apiCpuS,
  });
  await stopAll(live);
}

const seconds = (ms: unknown) => ms === undefined ? "–" : String(Math.round(Number(ms) / 100) / 10);
const list = (v: unknown) => (v as number[]).join(" / ");
print(
  "\n| mode | N | idle RSS per replica (MiB) | idle CPU per replica (%) | kube-apiserver idle CPU (%) | " +
    "keys per replica | startup (s) | handover: SIGTERM (s) | handover: SIGKILL (s) |",
);
print("| --- | -: | --- | --- | -: | --- | -: | -: | -: |");
for (const r of rows.filter((r) => r.phase === "idle")) {
  print(
    `| ${r.mode} | ${r.n} | ${list(r.rssMiB)} | ${list(r.cpuPercent)} | ${r.apiserverCpuPercent} | ${
      list(r.keys)
    } | ` +
      `${seconds(r.startupMs)} | ${seconds(r.leaveMs)} | ${seconds(r.killMs)} |`,
  );
}
print("\n| N | new Foos | created (s) | converged (s) | replica CPU (s) | kube-apiserver CPU (s) |");
print("| -: | -: | -: | -: | --- | -: |");
for (const r of rows.filter((r) => r.phase === "burst")) {
  print(
    `| ${r.n} | ${r.foos} | ${Number(r.createdMs) / 1000} | ${Number(r.convergeMs) / 1000} | ${
      (r.replicaCpuSeconds as number[]).join(" / ")
    } | ${r.apiserverCpuSeconds} |`,
  );
}
