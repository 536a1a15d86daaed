/**
 * FakeApi's patch types as a reconciler uses them: JSON patch (RFC 6902), JSON merge patch (RFC 7396), the
 * part of strategic merge patch that agrees with merge patch, and server-side apply's merging of lists of
 * named items. A patch that cannot be applied is a 422 Invalid and changes nothing.
 */
import assert from "node:assert/strict";
import { ApiError, type PatchOptions } from "../../lib/client/mod.ts";
import { CONFIG_MAPS, type ConfigMap, DEPLOYMENTS } from "../../lib/resources/mod.ts";
import { FakeApi } from "../../lib/testing/mod.ts";

const ns = { namespace: "ns" };

function seeded(): { api: FakeApi; before: ConfigMap } {
  const api = new FakeApi();
  const [before] = api.seed(CONFIG_MAPS, {
    metadata: { name: "cfg", namespace: "ns", annotations: { "example.com/owner": "team-a" } },
    data: { a: "1", b: "2" },
    binaryData: {},
  });
  return { api, before: before! };
}

const json = (api: FakeApi, ops: unknown) => api.patch(CONFIG_MAPS, "cfg", ops, { type: "json", ...ns });

Deno.test("a JSON patch adds, replaces, removes, copies, moves and tests, in order, with ~1 and ~0 escapes", async () => {
  const { api } = seeded();
  const after = await json(api, [
    { op: "test", path: "/data", value: { b: "2", a: "1" } },
    { op: "add", path: "/data/c", value: "3" },
    { op: "replace", path: "/data/a", value: "10" },
    { op: "remove", path: "/data/b" },
    { op: "copy", from: "/data/c", path: "/data/d" },
    { op: "move", from: "/data/c", path: "/data/e~0x" },
    { op: "replace", path: "/metadata/annotations/example.com~1owner", value: "team-b" },
    { op: "add", path: "/metadata/finalizers", value: ["x/one"] },
    { op: "add", path: "/metadata/finalizers/0", value: "x/zero" },
    { op: "add", path: "/metadata/finalizers/-", value: "x/two" },
    { op: "remove", path: "/metadata/finalizers/1" },
    { op: "replace", path: "/metadata/finalizers/1", value: "x/last" },
  ]);
  assert.deepEqual(after.data, { a: "10", d: "3", "e~x": "3" });
  assert.deepEqual(after.metadata.annotations, { "example.com/owner": "team-b" });
  assert.deepEqual(after.metadata.finalizers, ["x/zero", "x/last"]);
  assert.deepEqual(api.object(CONFIG_MAPS, "cfg", "ns"), after, "stored as returned");
});

Deno.test("a JSON patch that cannot apply is 422 Invalid naming the problem, and changes nothing", async () => {
  const cases: [unknown, RegExp][] = [
    [{ op: "add", path: "/data/x", value: "1" }, /A JSON patch must be an array of operations/],
    [
      [{ op: "add", path: "/data/x", value: "1" }, { op: "remove", path: "/data/missing" }],
      /"\/data\/missing" does not exist/,
    ],
    [[{ op: "replace", path: "/spec/replicas", value: 1 }], /"\/spec\/replicas" does not exist/],
    [[{ op: "remove", path: "/metadata/finalizers/0" }], /"\/metadata\/finalizers\/0" does not exist/],
    [[{ op: "test", path: "/data/a", value: "2" }], /JSON patch test failed at "\/data\/a"/],
    [[{ op: "add", path: "/metadata/finalizers", value: [] }, {
      op: "add",
      path: "/metadata/finalizers/2",
      value: "x",
    }], /index "2" is out of range/],
    [[{ op: "add", path: "/data/a/deeper", value: "x" }], /"\/data\/a\/deeper" has no parent object/],
    [[{ op: "add", path: "data/x", value: "1" }], /Invalid JSON pointer "data\/x"/],
    [[{ op: "increment", path: "/data/a" }], /Unsupported JSON patch operation "increment"/],
    [[{ op: "move", path: "/data/z" }], /JSON patch operation 0 \(move\) needs "from"/],
    [[null], /JSON patch operation 0 needs a string "op" and "path"/],
  ];
  for (const [ops, message] of cases) {
    const { api, before } = seeded();
    await assert.rejects(json(api, ops), (e: unknown) => {
      assert.ok(e instanceof ApiError, String(e));
      assert.equal(e.code, 422, e.message);
      assert.equal(e.reason, "Invalid");
      assert.match(e.message, /^ConfigMap "cfg" is invalid: /);
      assert.match(e.message, message);
      return true;
    });
    assert.deepEqual(api.object(CONFIG_MAPS, "cfg", "ns"), before, `${JSON.stringify(ops)} changed nothing`);
    assert.equal(api.resourceVersion, before.metadata.resourceVersion);
  }
});

Deno.test("merge and strategic merge patches merge maps, delete keys set to null and replace lists", async () => {
  for (const type of ["merge", "strategic"] as const) {
    const api = new FakeApi();
    api.seed(DEPLOYMENTS, {
      metadata: { name: "web", namespace: "ns", labels: { app: "web", tier: "front" } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: { spec: { containers: [{ name: "app", image: "app:1", args: ["--a"] }] } },
      },
    });
    const options: PatchOptions = { type, ...ns };
    const after = await api.patch(DEPLOYMENTS, "web", {
      metadata: { labels: { tier: null, version: "2" } },
      spec: { replicas: 3, template: { spec: { containers: [{ name: "app", image: "app:2" }] } } },
    }, options);
    assert.deepEqual(after.metadata.labels, { app: "web", version: "2" }, type);
    assert.equal(after.spec.replicas, 3, type);
    assert.deepEqual(after.spec.selector, { matchLabels: { app: "web" } }, `${type}: untouched maps stay`);
    assert.deepEqual(after.spec.template.spec?.containers, [{ name: "app", image: "app:2" }], type);
    assert.equal(after.metadata.generation, 2, `${type}: a spec change bumps the generation`);
    assert.equal(api.requests.at(-1)?.patchType, type);
  }
});

Deno.test("apply merges lists of named items by name, replaces other lists, and adds new items", async () => {
  const api = new FakeApi();
  api.seed(DEPLOYMENTS, {
    metadata: { name: "web", namespace: "ns" },
    spec: {
      selector: {},
      template: {
        spec: {
          containers: [
            { name: "app", image: "app:1", args: ["--a", "--b"] },
            { name: "sidecar", image: "proxy:1" },
          ],
        },
      },
    },
  });
  const applied = await api.patch(DEPLOYMENTS, "web", {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "ns" },
    spec: {
      template: {
        spec: {
          containers: [{ name: "app", image: "app:2", args: ["--c"] }, { name: "init", image: "init:1" }],
        },
      },
    },
  }, { type: "apply", fieldManager: "me", ...ns });
  assert.deepEqual(applied.spec.template.spec?.containers, [
    { name: "app", image: "app:2", args: ["--c"] },
    { name: "sidecar", image: "proxy:1" },
    { name: "init", image: "init:1" },
  ]);
});

Deno.test("apply with dryRun answers what would be stored and stores nothing", async () => {
  const { api, before } = seeded();
  const preview = await api.patch(CONFIG_MAPS, "cfg", {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cfg", namespace: "ns" },
    data: { a: "changed" },
  }, { type: "apply", fieldManager: "me", dryRun: true, ...ns });
  assert.equal(preview.data?.a, "changed");
  assert.deepEqual(api.object(CONFIG_MAPS, "cfg", "ns"), before);
  const created = await api.patch(CONFIG_MAPS, "new", {
    metadata: { name: "new", namespace: "ns" },
    data: { k: "v" },
  }, { type: "apply", fieldManager: "me", dryRun: true, ...ns });
  assert.equal(created.metadata.name, "new");
  assert.equal(created.metadata.resourceVersion, undefined);
  assert.equal(api.object(CONFIG_MAPS, "new", "ns"), undefined);
  assert.equal(api.resourceVersion, before.metadata.resourceVersion, "nothing was written");
});
