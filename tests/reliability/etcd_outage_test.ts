// Scenario "etcd-outage" at CI length; `deno task reliability` runs it at full length (docs/reliability.md).
import assert from "node:assert/strict";
import { print } from "../_util/print.ts";
import { judge, profile } from "./_profiles.ts";
import { summarize } from "./_report.ts";
import { runScenario } from "./_scenario.ts";
import { scenarioSeed } from "./_seed.ts";

Deno.test("etcd stopped for 10 s mid-churn (CI length; the full run stops it 30 s) while kube-apiserver answers errors: the controller converges ≤ 10 s after the server is ready, ≤ 2 lists per informer, no hot loop", async () => {
  const result = await runScenario({ ...profile("etcd-outage", "ci"), seed: scenarioSeed() });
  for (const line of summarize(result)) print(line);
  assert.deepEqual(judge(result, "etcd-outage"), []);
});
