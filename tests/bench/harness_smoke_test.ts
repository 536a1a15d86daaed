/**
 * Smoke runs of the bench harnesses that need no control plane, at tiny sizes, each as its doc comment runs
 * it: they must exit 0 and print their result tables with figures in them.
 *
 * Not covered here: the client-node client of bench/watch_stream/run.ts (built with npm from the registry,
 * see bench/README.md); the Go watch server it needs is built (stdlib only, seconds).
 */
import assert from "node:assert/strict";
import { assertExitedCleanly, assertTable, deno, runBench } from "../_util/bench_smoke.ts";

Deno.test("smoke: bench/cache_memory.ts --n=20 prints heap bytes per object for each way of caching", async () => {
  const run = await runBench(deno, ["run", "--v8-flags=--expose-gc", "bench/cache_memory.ts", "--n=20"]);
  assertExitedCleanly(run);
  assert.match(run.stdout, /^20 ConfigMaps, \d+ B of JSON each, of which managedFields \d+ B$/m);
  for (const row of ["keep managedFields", "stripManagedFields (rebuild metadata, default)"]) {
    assert.match(run.stdout, new RegExp(`^${row.replace(/[()]/g, "\\$&")} +\\S+ MB +-?\\d+ B/object$`, "m"));
  }
  assert.match(run.stdout, /^stripping saves -?\d+ %; delete would save -?\d+ %$/m);
});

Deno.test("smoke: bench/tls_connection_memory.ts --n=3 --rounds=1 prints growth per connection of every variant", async () => {
  const run = await runBench(deno, [
    "run",
    "--allow-all",
    "bench/tls_connection_memory.ts",
    "--n=3",
    "--rounds=1",
    "--warmup=1",
  ]);
  assertExitedCleanly(run);
  assert.match(run.stdout, /^3 TLS connections after 1 warm-up, 1 interleaved rounds/m);
  assert.match(
    run.stdout,
    /^variant +RSS +anon +file +heapTot +heapUsd +RSS noGC +ms\/conn +RSS ratio to node:tls$/m,
  );
  for (
    const variant of [
      "TlsConnector, node:tls",
      "TlsConnector",
      "TlsConnector, client cert",
      "node:tls, ca per connect",
      "node:tls, one SecureContext",
      "Deno.connectTls",
      "Deno.startTls",
    ]
  ) {
    const figures = " +-?[\\d.]+".repeat(8);
    assert.match(run.stdout, new RegExp(`^${variant.replace(/[.]/g, "\\.")}${figures}$`, "m"), variant);
  }
});

Deno.test("smoke: bench/chain_check_bench.ts --medians 5 prints the median of every check", async () => {
  const run = await runBench(deno, ["run", "--allow-read", "bench/chain_check_bench.ts", "--medians", "5"]);
  assertExitedCleanly(run);
  assert.match(run.stdout, /^5 interleaved rounds \(medians\):$/m);
  const lines = run.stdout.split("\n").filter((l) => /^ {2}\S.*: \d+ µs$/.test(l));
  assert.equal(lines.length, 4, run.stdout);
});

Deno.test("smoke: bench/tracing_bench.ts --medians 3 against another lib/ prints every median and the ratio", async () => {
  // This tree's own lib/ stands in for "another tree's": what is checked is that the comparison runs.
  const run = await runBench(deno, [
    "run",
    "--allow-env",
    "--allow-read",
    "bench/tracing_bench.ts",
    "--medians",
    "3",
  ], { env: { KUBELOOP_BENCH_N: "20", KUBELOOP_BENCH_LIB: "lib/" } });
  assertExitedCleanly(run);
  assert.match(run.stdout, /^3 interleaved rounds of 20 reconciles \(medians\):$/m);
  for (
    const name of [
      "this tree, tracing off",
      "KUBELOOP_BENCH_LIB",
      "tracing on, the API's no-op tracer",
      "tracing on, every span recorded",
    ]
  ) {
    assert.match(
      run.stdout,
      new RegExp(`^  ${name}: [\\d.]+ ms a round, [\\d.]+ µs a reconcile$`, "m"),
      name,
    );
  }
  assert.match(run.stdout, /^ {2}ratio \(this tree \/ KUBELOOP_BENCH_LIB\): [\d.]+$/m);
  assert.match(run.stdout, /^ {2}inSpan, tracing off: [\d.]+ ns$/m);
});

Deno.test("smoke: bench/watch_stream/run.ts --events=50 --rounds=1 times our clients and fetch", async () => {
  const run = await runBench(deno, [
    "run",
    "--allow-all",
    "bench/watch_stream/run.ts",
    "--events=50",
    "--rounds=1",
    "--clients=kubeloop kubeloop-reader fetch",
  ]);
  assertExitedCleanly(run);
  assertTable(run.stdout, "| client | time (ms) | events/s | CPU (s) | peak RSS (MB) |", [
    "| kubeloop |",
    "| kubeloop-reader |",
    "| fetch |",
  ]);
});
