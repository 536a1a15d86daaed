/**
 * Smoke runs of the bench harnesses that start a control plane of their own (without
 * kube-controller-manager, or with simulated nodes: not the shared one of this run), at tiny sizes, each
 * as its doc comment runs it: they must exit 0 and print their result tables with figures in them. They
 * live among the integration tests so that tests/run.sh has built the control plane's binaries first
 * (KUBELOOP_TESTENV_BIN); `--unit` runs none of them.
 *
 * Only our side runs: the peers built from registries (client-go, client-go-json/-strip, client-node,
 * kube-rs in bench/peers/cold_sync.ts and run.sh; the Go stand-in `go` of bench/controller/run.ts; the
 * controller-runtime webhook of bench/webhook/run.ts) take minutes to build cold and are not covered here,
 * nor is bench/protobuf/gen_tables.ts (a generator that reads the k8s.io/api sources from the Go module
 * cache). See bench/README.md.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExitedCleanly, assertTable, deno, runBench } from "../_util/bench_smoke.ts";

Deno.test("smoke: bench/peers/cold_sync.ts, our side, two sizes, prints the sync and scaling tables and the chart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-bench-smoke-" });
  const svg = join(dir, "scaling.svg");
  const run = await runBench(deno, [
    "run",
    "--allow-all",
    "bench/peers/cold_sync.ts",
    "--n=2,4",
    "--peers=kubeloop kubeloop-stream~identity",
    "--rounds=1",
    "--warmup=0",
    `--svg=${svg}`,
  ]);
  assertExitedCleanly(run);
  assertTable(run.stdout, "| program | time-to-synced (ms) | wall (s) | client CPU (s) | peak RSS (MB) |", [
    "| kubeloop |",
    "| kubeloop-stream~identity |",
  ]);
  assert.match(run.stdout, /^Informer cold sync of 4 ConfigMaps/m);
  assertTable(run.stdout, "| program | N | time-to-synced per object (µs) |", [
    "| kubeloop | 2 |",
    "| kubeloop | 4 |",
    "| kubeloop-stream~identity | 4 |",
  ]);
  assert.match(await Deno.readTextFile(svg), /^<svg[^>]*>[\s\S]*kubeloop-stream~identity[\s\S]*<\/svg>\s*$/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("smoke: bench/peers/run.sh, our side, prints its table", async () => {
  const run = await runBench("bash", ["bench/peers/run.sh"], {
    env: { N: "3", RUNS: "1", WARMUP: "0", PEERS: "kubeloop", DENO: deno },
  });
  assertExitedCleanly(run);
  assertTable(run.stdout, "| program | time-to-synced (ms) | wall (s) | peak RSS (MB) |", ["| kubeloop |"]);
});

Deno.test("smoke: bench/controller/run.ts, the reference controller alone, prints its table", async () => {
  const run = await runBench(deno, [
    "run",
    "--allow-all",
    "bench/controller/run.ts",
    "--programs=kubeloop",
    "--n=2",
    "--rounds=1",
    "--warmup=0",
    "--settle=0",
    "--window=1",
  ]);
  assertExitedCleanly(run);
  assertTable(run.stdout, "| program | ready (s) | converge (s) | RSS ready (MB) | idle RSS (MB) |", [
    "| kubeloop |",
  ]);
});

Deno.test("smoke: bench/protobuf/compare.ts --n=5 checks the decoder and prints client and server tables", async () => {
  const run = await runBench(deno, [
    "run",
    "--allow-all",
    "bench/protobuf/compare.ts",
    "--n=5",
    "--rounds=1",
  ]);
  assertExitedCleanly(run);
  assert.match(run.stderr, /decoded objects are identical/);
  assertTable(run.stdout, "| client decode | body (MB) | median (ms) | vs JSON |", [
    "| TextDecoder + JSON.parse |",
    "| prototype protobuf decoder |",
  ]);
  assertTable(run.stdout, "| API server, one LIST (RV=0) | response (MB) | apiserver CPU (ms) |", [
    "| JSON, identity |",
    "| protobuf, identity |",
    "| JSON, gzip |",
    "| protobuf, gzip |",
  ]);
});

Deno.test("smoke: bench/metadata_informer_memory.ts at N=5 prints heap per object of both modes", async () => {
  const run = await runBench(deno, ["run", "--allow-all", "bench/metadata_informer_memory.ts"], {
    env: { KUBELOOP_BENCH_N: "5", KUBELOOP_BENCH_RUNS: "1" },
  });
  assertExitedCleanly(run);
  assert.match(run.stdout, /^5 ConfigMaps \(~1 KB data each\), informer heap after sync, median of 1 runs/m);
  assert.match(run.stdout, /^ {2}whole objects +[\d.]+ MB +\(\d+ B\/object\)$/m);
  assert.match(run.stdout, /^ {2}metadata only +[\d.]+ MB +\(\d+ B\/object\)$/m);
  assert.match(run.stdout, /^ {2}metadata-only \/ whole = [\d.]+ \(saves -?\d+ %\)$/m);
});

Deno.test("smoke: bench/scale/foos.ts with 2 Foos scrapes the controller's secure metrics and prints its table", async () => {
  const run = await runBench(deno, [
    "run",
    "--allow-all",
    "bench/scale/foos.ts",
    "--settle=0",
    "--window=1",
    "2",
  ]);
  assertExitedCleanly(run);
  const [row] = assertTable(run.stdout, "| Foos | Pods | all Ready (s) | RSS before | RSS peak |", [
    "| 2 | 3 |",
  ]);
  // The controller's own request count came through its HTTPS /metrics: it created, patched and read.
  const requestsPerFoo = Number(row!.at(-1)!.split(" ")[0]);
  assert.ok(requestsPerFoo >= 1, `requests per Foo: ${row!.at(-1)}`);
});

Deno.test("smoke: bench/metrics_flood.ts floods for 2 s with 4 workers and prints its table", async () => {
  const run = await runBench(deno, [
    "run",
    "--allow-all",
    "bench/metrics_flood.ts",
    "--seconds=2",
    "--workers=4",
    "--interval-ms=500",
  ]);
  assertExitedCleanly(run);
  assertTable(run.stdout, "| metrics port under a token flood", [
    "| flood |",
    "| flood answers |",
    "| valid scrapes |",
    "| valid scrape latency |",
    "| TokenReviews to the API server |",
    "| SubjectAccessReviews |",
    "| new connections to the API server |",
  ]);
});

Deno.test("smoke: bench/shard/replicas.ts with 4 Foos and 2 replicas prints its tables", async () => {
  const run = await runBench(deno, [
    "run",
    "--allow-all",
    "bench/shard/replicas.ts",
    "--foos=4",
    "--burst=2",
    "--counts=2",
    "--idle=1",
    "--quiet=1",
    "--lease=3",
  ]);
  assertExitedCleanly(run);
  assert.match(run.stdout, /^\| empty namespace \| 1 \| [\d.]+ \| [\d.]+ \| [\d.]+ \|/m);
  // RSS and CPU of both replicas, the API server's CPU, the keys each reconciled (every Foo once between
  // them), startup and a graceful handover; with two replicas there is none left to SIGKILL ("–").
  for (const mode of ["server", "client"]) {
    const row = new RegExp(
      `^\\| ${mode} \\| 2 \\| [\\d.]+ / [\\d.]+ \\| [\\d.]+ / [\\d.]+ \\| [\\d.]+ \\| (\\d+) / (\\d+) \\| [\\d.]+ \\| [\\d.]+ \\| – \\|$`,
      "m",
    ).exec(run.stdout);
    assert.ok(row, `no complete "${mode}" row in:\n${run.stdout.slice(-3000)}`);
    assert.equal(Number(row[1]) + Number(row[2]), 4, row[0]);
  }
  assertTable(run.stdout, "| N | new Foos | created (s) |", ["| 2 | 2 |"]);
});

Deno.test("smoke: bench/webhook/run.ts, kubeloop alone, straight and through kube-apiserver, prints its table", async () => {
  const run = await runBench(deno, [
    "run",
    "--allow-all",
    "bench/webhook/run.ts",
    "--rates=20",
    "--seconds=1",
    "--warmup=0",
    "--rounds=1",
    "--peers=kubeloop",
  ]);
  assertExitedCleanly(run);
  const rows = assertTable(
    run.stdout,
    "| server | path | rate (/s) | p50 (ms) | p99 (ms) | CPU (% core) | RSS (MB) | peak RSS (MB) | failed |",
    ["| kubeloop | direct | 20 |", "| kubeloop | apiserver | 20 |"],
    2, // server and path
  );
  // Every request was admitted: through the API server too, so the webhook configuration took effect.
  for (const row of rows) assert.equal(row.at(-1), "0", row.join(" | "));
});
