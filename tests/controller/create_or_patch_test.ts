import assert from "node:assert/strict";
import { ApiError } from "../../lib/client/mod.ts";
import { apply, applyWouldChange, createOrPatch, mergePatch } from "../../lib/controller/mod.ts";
import { CONFIG_MAPS, DEPLOYMENTS } from "../../lib/resources/mod.ts";
import { FakeApi } from "../../lib/testing/mod.ts";

Deno.test("createOrPatch creates from a skeleton, patches only the difference, and skips a no-op", async () => {
  const api = new FakeApi();
  const target = { name: "cfg", namespace: "ns" };
  const created = await createOrPatch(api, CONFIG_MAPS, target, (cm) => {
    cm.data = { a: "1" };
  });
  assert.equal(created.operation, "created");
  assert.equal(created.object.apiVersion, "v1");
  assert.equal(created.object.kind, "ConfigMap");
  const patched = await createOrPatch(api, CONFIG_MAPS, target, (cm) => {
    cm.data = { ...cm.data, b: "2" };
    delete cm.data["a"];
  });
  assert.equal(patched.operation, "patched");
  assert.deepEqual(patched.object.data, { b: "2" });
  const last = api.requests.at(-1);
  assert.equal(last?.patchType, "merge");
  const unchanged = await createOrPatch(api, CONFIG_MAPS, target, (cm) => {
    cm.data = { b: "2" };
  });
  assert.equal(unchanged.operation, "unchanged");
  assert.equal(api.requests.at(-1)?.verb, "get", "no write for a no-op");
});

Deno.test("createOrPatch from a stale cached copy fails with 409 Conflict instead of overwriting", async () => {
  const api = new FakeApi();
  const [stale] = api.seed(CONFIG_MAPS, { metadata: { name: "cfg", namespace: "ns" }, data: { a: "1" } });
  await api.patch(CONFIG_MAPS, "cfg", { data: { a: "2" } }, { type: "merge", namespace: "ns" });
  await assert.rejects(
    createOrPatch(api, CONFIG_MAPS, { name: "cfg", namespace: "ns" }, (cm) => {
      cm.data = { a: "3" };
    }, { current: stale! }),
    (e: unknown) => e instanceof ApiError && e.isConflict,
  );
  assert.deepEqual(api.object(CONFIG_MAPS, "cfg", "ns")?.data, { a: "2" });
});

Deno.test("mergePatch holds changed and new fields, null for removed ones, nothing for equal values", () => {
  assert.deepEqual(
    mergePatch({ a: 1, b: { c: 1, d: 2 }, l: [1] }, { a: 1, b: { c: 2 }, l: [1, 2], n: "x" }),
    {
      b: { c: 2, d: null },
      l: [1, 2],
      n: "x",
    },
  );
  assert.equal(mergePatch({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), undefined);
});

Deno.test("apply sends a typed configuration as server-side apply with force, and applyWouldChange spots drift", async () => {
  const api = new FakeApi();
  const config = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "ns", labels: { app: "web" } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "web", image: "nginx" }] },
      },
    },
  };
  const stored = await apply(api, DEPLOYMENTS, config, { fieldManager: "test" });
  assert.equal(stored.spec.replicas, 2);
  assert.deepEqual(api.requests.at(-1), {
    verb: "patch",
    resource: "deployments",
    namespace: "ns",
    name: "web",
    patchType: "apply",
  });
  assert.equal(applyWouldChange(stored, config), false);
  assert.equal(applyWouldChange(stored, { ...config, spec: { ...config.spec, replicas: 3 } }), true);
  assert.equal(applyWouldChange(undefined, config), true);
  // @ts-expect-error replicas is a number in a Deployment's apply configuration
  const wrong: Parameters<typeof apply<typeof stored>>[2] = { ...config, spec: { replicas: "2" } };
  assert.ok(wrong);
});
