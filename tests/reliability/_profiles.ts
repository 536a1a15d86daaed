/**
 * The scenarios at two lengths: "full" (the figures in docs/reliability.md, `deno task reliability`
 * and `deno task soak`) and "ci" (shortened, run by `deno task test`), and what each must show.
 */
import { RESOURCES } from "./_controller_metrics.ts";
import type { ScenarioOptions, ScenarioResult } from "./_scenario.ts";

/** Scenario names. */
export type ScenarioName = "churn-faults" | "apiserver-kill" | "etcd-outage" | "watch-blackhole" | "soak";

/** A scenario's settings without seed and progress. */
export type Profile = Omit<ScenarioOptions, "seed" | "progress">;

const CHAOS = { meanIntervalMs: 700 } as const;

/**
 * Longest an informer may go without an event after its connections died: a watch is given up at most
 * 30 s + 5 s after it opened (lib/watch/watcher.ts), plus a reconnect and the second between two polls.
 */
const BLIND_LIMIT_MS = 40_000;

/** Settings per scenario and length. */
export function profile(name: ScenarioName, length: "full" | "ci"): Profile {
  const full = length === "full";
  switch (name) {
    case "churn-faults":
      return {
        name,
        foos: full ? 300 : 100,
        churnMs: full ? 120_000 : 30_000,
        opsPerSecond: full ? 10 : 8,
        chaos: CHAOS,
        convergeTimeoutMs: 90_000,
      };
    case "apiserver-kill":
      return {
        name,
        foos: full ? 300 : 100,
        churnMs: 0,
        opsPerSecond: full ? 10 : 8,
        disruption: { kind: "apiserver-kill", atMs: full ? 20_000 : 8_000, downMs: full ? 10_000 : 5_000 },
        convergeTimeoutMs: 90_000,
      };
    case "etcd-outage":
      return {
        name,
        foos: full ? 300 : 100,
        churnMs: 0,
        opsPerSecond: full ? 10 : 8,
        disruption: { kind: "etcd-outage", atMs: full ? 20_000 : 8_000, downMs: full ? 30_000 : 10_000 },
        convergeTimeoutMs: 90_000,
      };
    case "watch-blackhole":
      // Dead watches go at most 35 s after the blackhole (watches of 15-30 s, 5 s margin); requests
      // caught on dead pooled connections fail after the 60 s read timeout, so the churn goes on 75 s
      // (CI) or 100 s after it before convergence is timed.
      return {
        name,
        foos: full ? 300 : 100,
        churnMs: 0,
        opsPerSecond: full ? 10 : 8,
        disruption: { kind: "blackhole", atMs: full ? 70_000 : 10_000, downMs: full ? 100_000 : 75_000 },
        convergeTimeoutMs: 90_000,
      };
    case "soak":
      return {
        name,
        foos: 300,
        churnMs: full ? 600_000 : 120_000,
        opsPerSecond: 10,
        chaos: CHAOS,
        convergeTimeoutMs: 90_000,
        rssSampleMs: 10_000,
      };
  }
}

/**
 * Requests per second a controller may send while its server is down: the informers back off
 * (0.8 s doubling to 30 s, two informers), and failed reconciles go through the queue's overall
 * bucket of 10 per second (burst 100), each reconcile sending at most two requests. Averaged over
 * the outage that is at most 2 * (100 + 10 * s) / s + 2 informers * 2 per second: a hot loop sends
 * hundreds.
 */
export function maxRequestsPerSecondWhileDown(seconds: number): number {
  return (2 * (100 + 10 * seconds)) / seconds + 4;
}

/** What a result fails to show (empty: it passed). */
export function judge(result: ScenarioResult, name: ScenarioName): string[] {
  const failures: string[] = [];
  const fail = (what: string) => failures.push(what);
  if (result.crashed) fail(`the controller exited during the run (code ${result.exitCode})`);
  else if (result.exitCode !== 0) fail(`the controller exited ${result.exitCode} on SIGTERM`);
  if (result.foreignOutput.length > 0) {
    fail(`non-log output: ${result.foreignOutput.slice(0, 5).join(" | ")}`);
  }
  if (!result.converged) fail(`did not converge:\n${result.problems}`);
  if (result.controller.queueDepth !== 0) fail(`workqueue depth ${result.controller.queueDepth} at the end`);
  switch (name) {
    case "churn-faults":
    case "soak":
      if (!(result.convergeP95Ms <= 5_000)) fail(`convergence p95 ${result.convergeP95Ms} ms > 5000 ms`);
      if (result.proxy.faults && Object.values(result.proxy.faults).every((n) => n === 0)) {
        fail("no fault was injected");
      }
      if (name === "soak" && !(result.rss.maxDeviation <= 0.15)) {
        fail(
          `RSS moved ${(result.rss.maxDeviation * 100).toFixed(1)} % from its value after the first minute`,
        );
      }
      break;
    case "watch-blackhole": {
      if (!(result.convergeMaxMs <= 10_000)) {
        fail(`slowest Foo converged ${result.convergeMaxMs} ms after the churn`);
      }
      const blind = result.blackhole?.blindMs ?? {};
      for (const resource of RESOURCES) {
        const ms = blind[resource];
        if (ms === undefined) fail(`the ${resource} informer received no event after the blackhole`);
        else if (ms > BLIND_LIMIT_MS) {
          fail(`the ${resource} informer was blind ${ms} ms after the blackhole (> ${BLIND_LIMIT_MS} ms)`);
        }
      }
      break;
    }
    case "apiserver-kill":
    case "etcd-outage": {
      if (!(result.convergeMaxMs <= 10_000)) {
        fail(`slowest Foo converged ${result.convergeMaxMs} ms after the server was ready (> 10000 ms)`);
      }
      for (const [resource, n] of Object.entries(result.controller.relists)) {
        if (n > 2) fail(`${n} relists of ${resource} for one restart (> 2)`);
      }
      const down = result.whileDown;
      if (!down) {
        fail("no outage was measured");
      } else {
        const rate = down.requests / down.seconds;
        const bound = maxRequestsPerSecondWhileDown(down.seconds);
        if (rate > bound) {
          fail(`${rate.toFixed(1)} requests/s while down (> ${bound.toFixed(1)}): a hot loop`);
        }
      }
      break;
    }
  }
  return failures;
}
