/**
 * Runs reliability scenarios against the local control plane and prints their figures.
 *
 *   deno task reliability                  churn-faults, apiserver-kill, etcd-outage, watch-blackhole (full length)
 *   deno task soak                         the 10-minute soak
 *   deno run --allow-all tests/reliability/run_scenarios.ts [--length=full|ci] [--seed=N] [--json=FILE]
 *     [--churn-ms=N] NAME...        (--churn-ms overrides the churn length, for experiments)
 *
 * Exit 0 when every scenario showed what it must (see _profiles.ts `judge`), 1 otherwise.
 * @module
 */
import { print, printErr } from "../_util/print.ts";
import { judge, profile, type ScenarioName } from "./_profiles.ts";
import { summarize } from "./_report.ts";
import { runScenario, type ScenarioResult } from "./_scenario.ts";

const NAMES: readonly ScenarioName[] = [
  "churn-faults",
  "apiserver-kill",
  "etcd-outage",
  "watch-blackhole",
  "soak",
];

async function main(args: string[]): Promise<number> {
  const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const length = option("length") ?? "full";
  if (length !== "full" && length !== "ci") {
    printErr(`--length must be full or ci, got "${length}"`);
    return 2;
  }
  const seed = Number(option("seed") ?? Math.floor(Math.random() * 2 ** 31));
  const names = args.filter((a) => !a.startsWith("--"));
  const unknown = names.filter((n) => !NAMES.includes(n as ScenarioName));
  if (names.length === 0 || unknown.length > 0) {
    printErr(`usage: run_scenarios.ts [--length=full|ci] [--seed=N] [--json=FILE] ${NAMES.join("|")}...`);
    return 2;
  }
  const results: (ScenarioResult & { failures: string[] })[] = [];
  for (const name of names as ScenarioName[]) {
    const started = Date.now();
    const churnMs = option("churn-ms");
    const settings = { ...profile(name, length), ...(churnMs ? { churnMs: Number(churnMs) } : {}) };
    const result = await runScenario({ ...settings, seed, progress: (l) => print(`.. ${l}`) });
    const failures = judge(result, name);
    results.push({ ...result, failures });
    for (const line of summarize(result)) print(line);
    print(
      `  ${failures.length === 0 ? "PASSED" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    for (const f of failures) print(`  FAILED: ${f}`);
  }
  const json = option("json");
  if (json) await Deno.writeTextFile(json, JSON.stringify(results, null, 2) + "\n");
  return results.every((r) => r.failures.length === 0) ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
