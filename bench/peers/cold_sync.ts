/**
 * Side-by-side informer cold sync: kubeloop and its peers against the same local kube-apiserver, in
 * interleaved rounds (after warm-up rounds), one fresh process per sync. See README.md.
 *
 *   deno run --allow-all bench/peers/cold_sync.ts [--n=10000] [--kind=configmaps|foos] [--rounds=5]
 *     [--warmup=1] [--peers="kubeloop client-go client-go-json client-go-strip client-node kube-rs"]
 *     [--auth=cert|token] [--server-gc=each|none] [--svg=FILE] [--json=FILE]
 *
 * Peers: kubeloop (library defaults), kubeloop-paged / kubeloop-stream (initial list forced),
 * kubeloop@DIR (the probe of another tree, e.g. `git archive` of an older commit), kubeloop+FLAGS (other V8
 * flags than deno.json's "start" task, comma-separated; combinable: kubeloop-paged@DIR+FLAGS), client-go (protobuf for
 * built-in kinds), client-go-json, client-go-strip (managedFields dropped by a transform, as
 * controller-runtime's TransformStripManagedFields does), client-node, kube-rs. Any peer name may end in
 * `~identity`: that program gets a copy of the run's kubeconfig whose cluster sets `disable-compression: true`
 * (kubeloop and client-go then ask for uncompressed bodies; kube-rs's probe never asks for gzip).
 *
 * `--n` takes a comma-separated list (10000,50000,100000): the namespace is filled up to each size in
 * turn and every size is measured, then a scaling table (and with `--svg` a chart drawn from these
 * numbers) compares time and peak RSS per object.
 *
 * `--auth` chooses the credentials every program gets: `cert` (default) the admin kubeconfig with its client
 * certificate, `token` a service-account token with the CA, as a controller has in a pod (a service account
 * bound to cluster-admin, its token from the TokenRequest API, written into a kubeconfig).
 *
 * Reported per program: time-to-synced, process wall time, client CPU (user + sys), peak RSS, and the
 * CPU the API server and etcd spent during the run (from /proc/<pid>/stat before and after).
 *
 * `--server-gc=each` (default) has the API server collect its garbage before every sync (its
 * `/debug/pprof/heap?gc=1` runs Go's `runtime.GC()` and returns when it is done). Without it a collection
 * falls on whichever sync is running when the server's heap reaches its target, about 0.2 s of server
 * CPU at 10k objects, and that slot drifts from round to round; with it every sync starts from the same
 * collected heap, and the server CPU of a sync no longer includes a collection it did not cause alone.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startControlPlane } from "../_util/control_plane.ts";
import { cpuMsBetween, cpuTime } from "../_util/proc_stats.ts";
import { median, print, progress } from "../_util/stats.ts";
import { configMap, foo } from "./configmaps.ts";
import { scalingSvg } from "./scaling_chart.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "10000" },
    kind: { type: "string", default: "configmaps" },
    rounds: { type: "string", default: "5" },
    warmup: { type: "string", default: "1" },
    peers: {
      type: "string",
      default: "kubeloop client-go client-go-json client-go-strip client-node kube-rs",
    },
    svg: { type: "string" },
    json: { type: "string" },
    auth: { type: "string", default: "cert" },
    "server-gc": { type: "string", default: "each" },
  },
});
if (opts["server-gc"] !== "each" && opts["server-gc"] !== "none") {
  throw new Error(`--server-gc must be "each" or "none", not "${opts["server-gc"]}"`);
}
const sizes = opts.n.split(",").map(Number);
const KIND = opts.kind === "foos" ? "foos" : "configmaps";
const ROUNDS = Number(opts.rounds);
const WARMUP = Number(opts.warmup);
let peers = opts.peers.split(/\s+/).filter(Boolean);
const IDENTITY = "~identity";
/** The program a peer runs: its name without the `~identity` marker. */
const programOf = (peer: string) => peer.endsWith(IDENTITY) ? peer.slice(0, -IDENTITY.length) : peer;
const here = new URL(".", import.meta.url).pathname;
const repo = new URL("../../", import.meta.url).pathname;
const cache = Deno.env.get("KUBELOOP_BENCH_CACHE") ??
  join(Deno.env.get("HOME") ?? "/root", ".cache/kubeloop-bench");
const NS = `bench-cold-sync-${KIND}`;
const dec = new TextDecoder();

async function run(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
) {
  const r = await new Deno.Command(cmd, { args, ...options, stdout: "null", stderr: "inherit" }).output();
  return r.success;
}

// ---- build ---------------------------------------------------------------------------------------
await Deno.mkdir(cache, { recursive: true });
const goEnv = { GOWORK: "off", GOTOOLCHAIN: "local", CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" };
if (peers.some((p) => p.startsWith("client-go"))) {
  progress("go: building client-go-informer");
  if (
    !await run("go", ["build", "-trimpath", "-o", join(cache, "client-go-informer"), "."], {
      cwd: join(here, "client_go"),
      env: goEnv,
    })
  ) {
    throw new Error("go build failed");
  }
}
if (peers.some((p) => programOf(p) === "client-node")) {
  const dir = join(cache, "client-node");
  await Deno.mkdir(dir, { recursive: true });
  for (const f of ["package.json", "package-lock.json", "informer.mjs", "watch.mjs"]) {
    await Deno.copyFile(join(here, "client_node", f), join(dir, f));
  }
  const lock = await Deno.readFile(join(dir, "package-lock.json"));
  const key = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", lock)).slice(0, 8))
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  if ((await Deno.readTextFile(join(dir, ".installed")).catch(() => "")).trim() !== key) {
    progress("npm: installing @kubernetes/client-node");
    if (!await run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir })) {
      throw new Error("npm ci failed");
    }
    await Deno.writeTextFile(join(dir, ".installed"), key + "\n");
  }
}
if (peers.some((p) => programOf(p) === "kube-rs")) {
  progress("cargo: building kube-rs-informer (release; the first build takes several minutes)");
  const ok = await run("cargo", [
    "build",
    "--release",
    "--locked",
    "--quiet",
    "--manifest-path",
    join(here, "kube_rs/Cargo.toml"),
  ], {
    env: { CARGO_TARGET_DIR: join(cache, "kube-rs-target") },
  }).catch(() => false);
  if (!ok) {
    progress("kube-rs: no cargo or the build failed; skipped");
    peers = peers.filter((p) => programOf(p) !== "kube-rs");
  }
}
await run(Deno.execPath(), ["cache", "--quiet", join(here, "kubeloop_informer.ts")]);
for (const p of peers) {
  const dir = programOf(p).match(/^kubeloop[^@+]*@([^+]+)/)?.[1];
  if (dir) {
    await run(Deno.execPath(), [
      "cache",
      "--quiet",
      `--config=${join(dir, "deno.json")}`,
      join(dir, "bench/peers/kubeloop_informer.ts"),
    ]);
  }
}

/** The V8 flags of the shipped controller (deno.json "start"), so levers there show up here too. */
async function shippedV8Flags(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(repo, "deno.json"))) as {
    tasks: Record<string, string>;
  };
  return (config.tasks["start"] ?? "").split(/\s+/).filter((w) => w.startsWith("--v8-flags"));
}
const v8Flags = await shippedV8Flags();

function command(peer: string, n: number, kubeconfig: string): string[] {
  // kubeloop@DIR: the probe of another tree (e.g. an older commit from `git archive`), to measure a lever.
  const dir = peer.match(/^kubeloop[^@+]*@([^+]+)/)?.[1];
  // kubeloop…+FLAG,FLAG: these V8 flags instead of the shipped ones ("+" alone: none).
  const flagsOverride = peer.match(/\+(.*)$/)?.[1];
  const flags = flagsOverride === undefined
    ? v8Flags
    : flagsOverride === ""
    ? []
    : [`--v8-flags=${flagsOverride}`];
  const probe = dir ? join(dir, "bench/peers/kubeloop_informer.ts") : join(here, "kubeloop_informer.ts");
  const kubeloop = (initialList?: string) => [
    Deno.execPath(),
    "run",
    "--quiet",
    ...flags,
    "--allow-net=127.0.0.1",
    "--allow-read",
    "--allow-env=KUBECONFIG,HOME,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT,KUBELOOP_BENCH_T0_MS",
    "--ignore-env=LOG_TOKENS,LOG_STREAM",
    ...(dir ? [`--config=${join(dir, "deno.json")}`] : []),
    probe,
    NS,
    String(n),
    KIND,
    ...(initialList ? [initialList] : []),
  ];
  const clientGo = (...flags: string[]) => [
    join(cache, "client-go-informer"),
    `-kubeconfig=${kubeconfig}`,
    `-namespace=${NS}`,
    `-expect=${n}`,
    `-resource=${KIND}`,
    ...flags,
  ];
  switch (peer.replace(/[@+].*$/, "")) {
    case "kubeloop":
      return kubeloop();
    case "kubeloop-paged":
      return kubeloop("paged");
    case "kubeloop-stream":
      return kubeloop("stream");
    case "client-go":
      return clientGo();
    case "client-go-json":
      return clientGo("-json");
    case "client-go-strip":
      return clientGo("-strip-managed-fields");
    case "client-node":
      return ["node", join(cache, "client-node/informer.mjs"), NS, String(n), KIND];
    case "kube-rs":
      return [join(cache, "kube-rs-target/release/kube-rs-informer"), NS, String(n), KIND];
    default:
      throw new Error(`Unknown peer "${peer}"`);
  }
}

// ---- control plane and objects --------------------------------------------------------------------
progress("starting the control plane");
await using cp = await startControlPlane();
if (KIND === "foos") {
  await cp.kubectlOk(["apply", "-f", join(repo, "crds/samplecontroller.k8s.io_foos.yaml")]);
  await cp.kubectlOk(["wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io"]);
}
await cp.kubectlOk(["create", "namespace", NS]);

/** A kubeconfig with a service-account token and the CA: the credentials a controller has in a pod. */
async function tokenKubeconfig(): Promise<string> {
  await cp.kubectlOk(["create", "serviceaccount", "bench-cold-sync", "-n", NS]);
  await cp.kubectlOk([
    "create",
    "clusterrolebinding",
    `bench-cold-sync-${KIND}`,
    "--clusterrole=cluster-admin",
    `--serviceaccount=${NS}:bench-cold-sync`,
  ]);
  const token = (await cp.kubectlOk(["create", "token", "bench-cold-sync", "-n", NS, "--duration=24h"]))
    .trim();
  const ca = await Deno.readTextFile(join(cp.dir, "ca.crt"));
  const path = join(await Deno.makeTempDir({ prefix: "kubeloop-cold-sync-auth-" }), "kubeconfig");
  // Block-style YAML, as kubectl writes it.
  const yaml = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: bench",
    "  cluster:",
    `    server: ${cp.server}`,
    `    certificate-authority-data: ${btoa(ca)}`,
    "users:",
    "- name: bench",
    "  user:",
    `    token: ${token}`,
    "contexts:",
    "- name: bench",
    "  context:",
    "    cluster: bench",
    "    user: bench",
    "current-context: bench",
    "",
  ].join("\n");
  await Deno.writeTextFile(path, yaml, { mode: 0o600 });
  return path;
}
const kubeconfig = opts.auth === "token" ? await tokenKubeconfig() : cp.kubeconfig;
if (opts.auth !== "token" && opts.auth !== "cert") {
  throw new Error(`--auth=${opts.auth}: expected cert or token`);
}

/** A copy of `path` (block-style YAML with one cluster) whose cluster sets `disable-compression: true`. */
async function identityKubeconfig(path: string): Promise<string> {
  const text = await Deno.readTextFile(path);
  const servers = [...text.matchAll(/^( +)server: .*$/gm)];
  if (servers.length !== 1) {
    throw new Error(`${path}: expected one cluster "server:" line, found ${servers.length}`);
  }
  const [line, indent] = servers[0]!;
  const copy = join(await Deno.makeTempDir({ prefix: "kubeloop-cold-sync-identity-" }), "kubeconfig");
  await Deno.writeTextFile(copy, text.replace(line, `${line}\n${indent}disable-compression: true`), {
    mode: 0o600,
  });
  return copy;
}
const identityConfig = peers.some((p) => p.endsWith(IDENTITY))
  ? await identityKubeconfig(kubeconfig)
  : kubeconfig;

let created = 0;

/** Creates objects [created, n) with `kubectl create` of 1,000-item lists, 4 at a time. */
async function fill(n: number): Promise<void> {
  const started = Date.now();
  const make = KIND === "foos" ? foo : configMap;
  const batches: [number, number][] = [];
  for (let from = created; from < n; from += 1000) batches.push([from, Math.min(from + 1000, n)]);
  let next = 0;
  const worker = async () => {
    for (let b = next++; b < batches.length; b = next++) {
      const [from, to] = batches[b]!;
      const items = [];
      for (let i = from; i < to; i++) items.push(make(i, NS));
      await cp.kubectlOk(
        ["create", "-f", "-", "-o", "name"],
        JSON.stringify({ apiVersion: "v1", kind: "List", items }),
      );
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  created = n;
  progress(`created ${KIND} up to ${n} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

// ---- measurement ----------------------------------------------------------------------------------
/** One measured sync. */
interface Result {
  peer: string;
  n: number;
  round: number;
  syncedMs: number;
  wallS: number;
  cpuS: number;
  rssKb: number;
  apiserverCpuS: number;
  etcdCpuS: number;
}

const work = await Deno.makeTempDir({ prefix: "kubeloop-cold-sync-" });
async function measure(peer: string, n: number, round: number): Promise<Result> {
  const timeFile = join(work, "time");
  const config = peer.endsWith(IDENTITY) ? identityConfig : kubeconfig;
  if (opts["server-gc"] === "each") await cp.kubectlOk(["get", "--raw", "/debug/pprof/heap?gc=1"]);
  const api0 = cpuTime(cp.apiserverPid);
  const etcd0 = cpuTime(cp.etcdPid);
  const out = await new Deno.Command("nice", {
    args: [
      "-n",
      "0",
      "/usr/bin/time",
      "-o",
      timeFile,
      "-f",
      "%e %M %U %S",
      ...command(programOf(peer), n, config),
    ],
    env: { KUBECONFIG: config, KUBELOOP_BENCH_T0_MS: String(Date.now()) },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const apiserverCpuS = cpuMsBetween(api0, cpuTime(cp.apiserverPid)) / 1000;
  const etcdCpuS = cpuMsBetween(etcd0, cpuTime(cp.etcdPid)) / 1000;
  const m = dec.decode(out.stdout).match(/^synced (\d+) (\d+)$/m);
  if (!out.success || !m || Number(m[1]) !== n) {
    throw new Error(`${peer} failed:\n${dec.decode(out.stdout)}\n${dec.decode(out.stderr).slice(-3000)}`);
  }
  const [wall, rss, user, sys] = (await Deno.readTextFile(timeFile)).trim().split("\n").at(-1)!.split(" ")
    .map(Number);
  const r: Result = {
    peer,
    n,
    round,
    syncedMs: Number(m[2]),
    wallS: wall!,
    cpuS: user! + sys!,
    rssKb: rss!,
    apiserverCpuS,
    etcdCpuS,
  };
  progress(
    `${n} ${
      round === 0 ? "warm-up" : `round ${round}`
    } ${peer}: synced ${r.syncedMs} ms, wall ${r.wallS} s, ` +
      `CPU ${r.cpuS.toFixed(2)} s, RSS ${(r.rssKb / 1024).toFixed(0)} MB, apiserver ${
        apiserverCpuS.toFixed(2)
      } s`,
  );
  return r;
}

const results: Result[] = [];
for (const n of sizes) {
  await fill(n);
  for (let r = 0; r < WARMUP; r++) for (const p of peers) await measure(p, n, 0);
  for (let r = 1; r <= ROUNDS; r++) for (const p of peers) results.push(await measure(p, n, r));
}
await Deno.remove(work, { recursive: true });

// ---- tables ---------------------------------------------------------------------------------------
const base = peers[0]!;
const of = (peer: string, n: number) => results.filter((r) => r.peer === peer && r.n === n);
const med = (peer: string, n: number, f: (r: Result) => number) => median(of(peer, n).map(f));
/** Median over rounds of base ÷ peer for `f`: below 1 means the base program needs less. */
function ratio(peer: string, n: number, f: (r: Result) => number): string {
  const per: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const a = results.find((x) => x.peer === base && x.n === n && x.round === r);
    const b = results.find((x) => x.peer === peer && x.n === n && x.round === r);
    if (a && b) per.push(f(a) / f(b));
  }
  return median(per).toFixed(2);
}
const date = new Date().toISOString().slice(0, 10);
for (const n of sizes) {
  print();
  print(
    `Informer cold sync of ${n} ${
      KIND === "foos" ? "Foos (custom resource)" : "ConfigMaps"
    } in one namespace${opts.auth === "token" ? " (service-account token, as in a pod)" : ""}, ` +
      `median of ${ROUNDS} interleaved rounds after ${WARMUP} warm-up${
        opts["server-gc"] === "each" ? ", the API server's garbage collected before each sync" : ""
      }, ${date}`,
  );
  print();
  print(
    `| program | time-to-synced (ms) | wall (s) | client CPU (s) | peak RSS (MB) | apiserver CPU (s) | etcd CPU (s) | ` +
      `${base} / this: time | CPU | RSS |`,
  );
  print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const p of peers) {
    print(
      `| ${p} | ${med(p, n, (r) => r.syncedMs).toFixed(0)} | ${med(p, n, (r) => r.wallS).toFixed(2)} | ${
        med(p, n, (r) => r.cpuS).toFixed(2)
      } | ${(med(p, n, (r) => r.rssKb) / 1024).toFixed(0)} | ${
        med(p, n, (r) => r.apiserverCpuS).toFixed(2)
      } | ${med(p, n, (r) => r.etcdCpuS).toFixed(2)} | ${ratio(p, n, (r) => r.syncedMs)} | ${
        ratio(p, n, (r) => r.cpuS)
      } | ${ratio(p, n, (r) => r.rssKb)} |`,
    );
  }
}
if (sizes.length > 1) {
  print();
  print(`How cost grows (medians per size; per object = the run's figure ÷ N), ${date}`);
  print();
  print(
    `| program | N | time-to-synced per object (µs) | peak RSS per object (KB) | ${base} / this: time | RSS |`,
  );
  print("|---|---:|---:|---:|---:|---:|");
  for (const n of sizes) {
    for (const p of peers) {
      print(
        `| ${p} | ${n} | ${(med(p, n, (r) => r.syncedMs) * 1000 / n).toFixed(1)} | ${
          (med(p, n, (r) => r.rssKb) * 1.024 / n).toFixed(2)
        } | ${ratio(p, n, (r) => r.syncedMs)} | ${ratio(p, n, (r) => r.rssKb)} |`,
      );
    }
  }
  if (opts.svg) {
    const series = peers.map((p) => ({
      name: p,
      points: sizes.map((n) => ({
        n,
        usPerObject: med(p, n, (r) => r.syncedMs) * 1000 / n,
        kbPerObject: med(p, n, (r) => r.rssKb) * 1.024 / n,
      })),
    }));
    await Deno.writeTextFile(opts.svg, scalingSvg(series, `${KIND}, medians of ${ROUNDS} rounds, ${date}`));
    progress(`wrote ${opts.svg}`);
  }
}
print();
print("Ratios are medians of per-round ratios (each round runs every program back to back).");
print("Raw runs (program, N, round, synced ms, wall s, CPU s, peak RSS KB, apiserver CPU s, etcd CPU s):");
print();
for (const r of results) {
  print(
    `    ${r.peer} ${r.n} ${r.round} ${r.syncedMs} ${r.wallS} ${r.cpuS.toFixed(2)} ${r.rssKb} ${
      r.apiserverCpuS.toFixed(2)
    } ${r.etcdCpuS.toFixed(2)}`,
  );
}
if (opts.json) await Deno.writeTextFile(opts.json, JSON.stringify(results, null, 2));
