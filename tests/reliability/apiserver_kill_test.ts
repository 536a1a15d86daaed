// Scenario "apiserver-kill" at CI length; `deno task reliability` runs it at full length (docs/reliability.md).
import assert from "node:assert/strict";
import { print } from "../_util/print.ts";
import { judge, profile } from "./_profiles.ts";
import { summarize } from "./_report.ts";
import { runScenario } from "./_scenario.ts";
import { scenarioSeed } from "./_seed.ts";

Deno.test("kube-apiserver SIGKILLed mid-churn and started again on the same etcd (CI length): the controller converges ≤ 10 s after the server is ready, ≤ 2 lists per informer, no hot loop while it is down", async () => {
  const result = await runScenario({ ...profile("apiserver-kill", "ci"), seed: scenarioSeed() });
  for (const line of summarize(result)) print(line);
  assert.deepEqual(judge(result, "apiserver-kill"), []);
});
