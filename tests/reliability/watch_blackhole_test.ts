// Scenario "watch-blackhole" at CI length; `deno task reliability` runs it at full length (docs/reliability.md).
import assert from "node:assert/strict";
import { print } from "../_util/print.ts";
import { judge, profile } from "./_profiles.ts";
import { summarize } from "./_report.ts";
import { runScenario } from "./_scenario.ts";
import { scenarioSeed } from "./_seed.ts";

Deno.test("every connection of the controller goes dead without closing, 10 s into the churn, and is never healed (CI length): each informer receives events again ≤ 40 s later, every Foo converges ≤ 10 s after the churn", async () => {
  const result = await runScenario({ ...profile("watch-blackhole", "ci"), seed: scenarioSeed() });
  for (const line of summarize(result)) print(line);
  assert.deepEqual(judge(result, "watch-blackhole"), []);
});
