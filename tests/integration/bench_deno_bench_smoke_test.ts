/**
 * Smoke runs of the `deno bench` files that need a control plane (they attach to this run's shared one
 * through tests/_util/testenv.ts, as `deno task bench` would start their own): tiny sizes
 * (bench/_util/bench_env.ts), one iteration per case, and a timing row for every case.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { testEnv } from "../_util/testenv.ts";
import { assertBenchRows, assertExitedCleanly, deno, runBench } from "../_util/bench_smoke.ts";

/** The environment that makes a bench's tests/_util/testenv.ts attach to this run's control plane. */
async function attached(): Promise<Record<string, string>> {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-bench-attach-" });
  const path = join(dir, "testenv.json");
  const { server, kubeconfig, dir: stateDir, control } = testEnv;
  await Deno.writeTextFile(path, JSON.stringify({ server, kubeconfig, dir: stateDir, control }));
  return { KUBELOOP_TESTENV_ATTACH: path, KUBELOOP_TESTENV_BIN: testEnv.binDir };
}

const env = {
  ...await attached(),
  KUBELOOP_BENCH_N: "5",
  KUBELOOP_BENCH_ITERATIONS: "1",
};

Deno.test("smoke: bench/informer_sync_bench.ts times a cold sync with each initial list", async () => {
  const run = await runBench(deno, ["bench", "--no-check", "--allow-all", "bench/informer_sync_bench.ts"], {
    env,
  });
  assertBenchRows(run, [
    'initialList "paged", 5 ConfigMaps',
    'initialList "stream", 5 ConfigMaps',
    'initialList "auto", 5 ConfigMaps',
  ]);
});

Deno.test("smoke: bench/tls_connect_bench.ts times every connection path", async () => {
  const run = await runBench(deno, ["bench", "--no-check", "--allow-all", "bench/tls_connect_bench.ts"], {
    env,
  });
  assertBenchRows(run, [
    "25 x node:tls verdict only (before)",
    "25 x TlsConnector, own chain check (after)",
    "25 x TlsConnector, cold (after, first connection)",
    "25 x TlsConnector, no client cert (Deno TLS)",
    "25 x TlsConnector, no client cert, node:tls",
  ]);
});

Deno.test("smoke: bench/tls_connect_bench.ts --interleaved 3 prints the median of every path", async () => {
  const run = await runBench(
    deno,
    ["run", "--allow-all", "bench/tls_connect_bench.ts", "--interleaved", "3"],
    {
      env,
    },
  );
  assertExitedCleanly(run);
  assert.match(run.stdout, /^TLS connect to https:\/\/127\.0\.0\.1:\d+, 3 interleaved rounds \(medians\):$/m);
  const lines = run.stdout.split("\n").filter((l) => /^ {2}\S.*: [\d.]+ ms, ratio to before [\d.]+$/.test(l));
  assert.equal(lines.length, 6, run.stdout);
});
