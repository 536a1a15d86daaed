import assert from "node:assert/strict";
import { coverageByFolder, coverageTable, percent } from "./coverage_summary.ts";

const LCOV = [
  "SF:/repo/lib/http/client.ts",
  "DA:1,3",
  "DA:2,0",
  "BRDA:2,0,0,1",
  "BRDA:2,0,1,-",
  "end_of_record",
  "SF:/repo/lib/http/pool.ts",
  "DA:1,1",
  "DA:2,1",
  "BRDA:1,0,0,0",
  "end_of_record",
  "SF:/repo/lib/mod.ts",
  "DA:1,1",
  "end_of_record",
  "SF:/repo/tests/http/client_test.ts",
  "DA:1,0",
  "end_of_record",
  "SF:/repo/lib/_internal/hostname.ts",
  "DA:1,1",
  "end_of_record",
].join("\n");

Deno.test("coverage is summed per folder of lib/; files outside lib/ are left out", () => {
  const folders = coverageByFolder(LCOV, "/repo");
  assert.deepEqual([...folders.keys()], ["lib", "lib/_internal", "lib/http"]);
  assert.deepEqual(folders.get("lib/http"), { linesHit: 3, lines: 4, branchesHit: 1, branches: 3 });
  assert.deepEqual(folders.get("lib"), { linesHit: 1, lines: 1, branchesHit: 0, branches: 0 });
});

Deno.test("the table marks folders below the line threshold and adds a total", () => {
  const { text, below } = coverageTable(coverageByFolder(LCOV, "/repo/"), 90);
  assert.deepEqual(below, ["lib/http"]);
  const lines = text.split("\n");
  assert.match(lines[0]!, /^folder\s+lines\s+branches$/);
  assert.match(text, /^lib\/http \*\s+75\.0 %\s+3\/4\s+33\.3 %\s+1\/3$/m);
  assert.match(text, /^lib\s+100\.0 %\s+1\/1\s+n\/a\s+0\/0$/m);
  assert.match(lines.at(-1)!, /^lib\/ \(all\)\s+83\.3 %\s+5\/6\s+33\.3 %\s+1\/3$/);
  assert.deepEqual(coverageTable(coverageByFolder(LCOV, "/repo"), 70).below, []);
});

Deno.test("percentages round down, so 89.99 % never shows as 90.0 %", () => {
  assert.equal(percent(8999, 10000), "89.9 %");
  assert.equal(percent(0, 0), "n/a");
  assert.equal(percent(1, 1), "100.0 %");
});
