// Scenario "churn-faults" at CI length; `deno task reliability` runs it at full length (docs/reliability.md).
import assert from "node:assert/strict";
import { print } from "../_util/print.ts";
import { judge, profile } from "./_profiles.ts";
import { summarize } from "./_report.ts";
import { runScenario } from "./_scenario.ts";
import { scenarioSeed } from "./_seed.ts";

Deno.test("100 Foos churned for 30 s (CI length) while the fault proxy resets, stalls, blackholes, delays and half-closes the controller's connections: it converges (p95 ≤ 5 s after the last fault), garbage is collected, the process never crashed", async () => {
  const result = await runScenario({ ...profile("churn-faults", "ci"), seed: scenarioSeed() });
  for (const line of summarize(result)) print(line);
  assert.deepEqual(judge(result, "churn-faults"), []);
});
