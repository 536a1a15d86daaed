/**
 * Smoke runs of bench/priority/run.ts and bench/failover/run.ts, which start a control plane of their own
 * (like those of bench_harness_smoke_test.ts), at tiny sizes, each as its doc comment runs it: they must exit
 * 0 and print their result tables with figures in them.
 *
 * The priority bench runs our side only (kubeloop, with and without priorities): its controller-runtime peer
 * takes minutes to build cold from the Go module proxy (measured 6.4 min on a loaded 2-core machine) and is
 * not covered here. The failover bench runs both modes, so each smoke run waits out two Lease expiries
 * (about 15 s each: the Lease duration is the reference controller's default).
 */
import { assertExitedCleanly, assertTable, deno, runBench } from "../_util/bench_smoke.ts";

Deno.test("smoke: bench/priority/run.ts, kubeloop with and without priorities, prints its table", async () => {
  const run = await runBench(deno, [
    "run",
    "--allow-all",
    "bench/priority/run.ts",
    "--n=3",
    "--rounds=1",
    "--warmup=0",
    "--delay-ms=100",
    "--programs=kubeloop kubeloop-fifo",
  ]);
  assertExitedCleanly(run);
  assertTable(run.stdout, "| program | new Foo reconciled after (ms) |", [
    "| kubeloop |",
    "| kubeloop-fifo |",
  ]);
});

Deno.test("smoke: bench/failover/run.ts, a warm and a cold standby take over, prints its table", async () => {
  const run = await runBench(deno, [
    "run",
    "--allow-all",
    "bench/failover/run.ts",
    "--n=2",
    "--rounds=1",
    "--settle=1",
  ]);
  assertExitedCleanly(run);
  assertTable(run.stdout, "| standby | kill to new leader (ms) | leader to first reconcile (ms) |", [
    "| warm |",
    "| cold |",
  ]);
});
