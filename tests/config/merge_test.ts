import assert from "node:assert/strict";
import { mergeKubeconfigs, parseKubeconfig } from "../../lib/config/mod.ts";

const first = await parseKubeconfig(
  `
clusters: [{name: shared, cluster: {server: "https://first"}}, {name: only-first, cluster: {server: "https://f"}}]
users: [{name: me, user: {token: first-token}}]
contexts: [{name: dev, context: {cluster: shared, user: me}}]
`,
  "/a/config",
);
const second = await parseKubeconfig(
  `
current-context: dev
clusters: [{name: shared, cluster: {server: "https://second"}}, {name: only-second, cluster: {server: "https://s"}}]
users: [{name: me, user: {token: second-token}}]
contexts: [{name: dev, context: {cluster: only-second, user: me}}, {name: prod, context: {cluster: shared}}]
`,
  "/b/config",
);
const third = await parseKubeconfig(`current-context: prod`, "/c/config");

Deno.test("the first file to define a name wins and duplicates do not throw", () => {
  const merged = mergeKubeconfigs([first, second]);
  assert.equal(merged.clusters.get("shared")?.server, "https://first");
  assert.equal(merged.clusters.get("shared")?.file, "/a/config");
  assert.equal(merged.users.get("me")?.token, "first-token");
  assert.equal(merged.contexts.get("dev")?.cluster, "shared");
  assert.deepEqual([...merged.clusters.keys()], ["shared", "only-first", "only-second"]);
  assert.equal(merged.contexts.get("prod")?.file, "/b/config");
  assert.deepEqual(merged.files, ["/a/config", "/b/config"]);
});

Deno.test("the order of files decides which definition wins", () => {
  const merged = mergeKubeconfigs([second, first]);
  assert.equal(merged.clusters.get("shared")?.server, "https://second");
  assert.equal(merged.users.get("me")?.token, "second-token");
});

Deno.test("the first non-empty current-context wins", () => {
  assert.deepEqual(mergeKubeconfigs([first, second, third]).currentContext, {
    name: "dev",
    file: "/b/config",
  });
  assert.deepEqual(mergeKubeconfigs([third, second]).currentContext, { name: "prod", file: "/c/config" });
  assert.equal(mergeKubeconfigs([first]).currentContext, undefined);
});
