import assert from "node:assert/strict";
import {
  circles,
  type Edge,
  FLOORS,
  folderGraph,
  importsOf,
  layerViolations,
  readGraph,
} from "./import_graph.ts";

const repo = new URL("../..", import.meta.url).pathname;

Deno.test("lib/ has no import circle between files", async () => {
  const found = circles(await readGraph(repo));
  assert.deepEqual(found.map((c) => c.join(" -> ")), []);
});

Deno.test("no import in lib/ climbs a floor, goes sideways, or leaves lib/", async () => {
  assert.deepEqual(layerViolations(await readGraph(repo)), []);
});

Deno.test("every folder of lib/ has a floor, and docs/architecture.md names each with it", async () => {
  const folders: string[] = [];
  for await (const entry of Deno.readDir(`${repo}/lib`)) if (entry.isDirectory) folders.push(entry.name);
  assert.deepEqual(folders.filter((f) => FLOORS[f] === undefined), []);
  const doc = await Deno.readTextFile(`${repo}/docs/architecture.md`);
  for (const folder of folders) {
    assert.match(
      doc,
      new RegExp(`\\|\\s*${FLOORS[folder]}\\s*\\|\\s*\`lib/${folder}/?\``),
      `lib/${folder} in the doc`,
    );
  }
});

Deno.test("the graph reader sees every form of import, and none in comments", () => {
  const source = [
    'import { a } from "./a.ts";',
    'import type { B } from "../b/b.ts";',
    'export { c } from "./c.ts";',
    'export * from "./d.ts";',
    'import "./e.ts";',
    'const f = await import("./f.ts");',
    "import {\n  g,\n  type G,\n} from './g.ts';",
    '// import { h } from "./h.ts";',
    '/* export * from "./i.ts"; */',
    'import x from "npm:yaml";',
  ].join("\n");
  assert.deepEqual(importsOf(source), [
    "./a.ts",
    "../b/b.ts",
    "./c.ts",
    "./d.ts",
    "./e.ts",
    "./f.ts",
    "./g.ts",
    "npm:yaml",
  ]);
});

Deno.test("a circle is found, whatever its length, and a self-import too", () => {
  const edges: Edge[] = [
    { from: "lib/http/a.ts", to: "lib/http/b.ts" },
    { from: "lib/http/b.ts", to: "lib/http/c.ts" },
    { from: "lib/http/c.ts", to: "lib/http/a.ts" },
    { from: "lib/http/c.ts", to: "lib/time/clock.ts" },
    { from: "lib/log/x.ts", to: "lib/log/x.ts" },
  ];
  assert.deepEqual(circles(edges), [["lib/http/a.ts", "lib/http/b.ts", "lib/http/c.ts"], ["lib/log/x.ts"]]);
  assert.deepEqual(circles(edges.slice(0, 2)), []);
});

Deno.test("a climb, a sideways import, a folder without a floor and an escape are each reported", () => {
  const edges: Edge[] = [
    { from: "lib/http/client.ts", to: "lib/client/kube_client.ts" },
    { from: "lib/queue/q.ts", to: "lib/config/c.ts" },
    { from: "lib/shiny/x.ts", to: "lib/time/clock.ts" },
    { from: "lib/testing/env.ts", to: "tests/testenv/x.ts" },
    { from: "lib/client/kube_client.ts", to: "lib/http/client.ts" },
  ];
  const problems = layerViolations(edges);
  assert.equal(problems.length, 4);
  assert.match(problems.join("\n"), /lib\/http\/client\.ts \(http, floor 3\) imports .* the import climbs/);
  assert.match(problems.join("\n"), /lib\/queue\/q\.ts .* the import goes sideways/);
  assert.match(problems.join("\n"), /lib\/shiny has no floor/);
  assert.match(problems.join("\n"), /imports tests\/testenv\/x\.ts, outside lib\//);
});

Deno.test("the folder graph of lib/ lists what each folder imports", async () => {
  const graph = folderGraph(await readGraph(repo));
  assert.ok(graph.get("client")?.has("http"));
  assert.ok(!graph.get("http")?.has("client"));
});
