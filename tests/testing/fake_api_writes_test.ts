/**
 * FakeApi's writes and reads besides patches, as a reconciler meets them on a real API server: status
 * writes, dry runs, delete preconditions, repeated deletes, malformed requests; and the test-side view of
 * what is stored.
 */
import assert from "node:assert/strict";
import { ApiError } from "../../lib/client/mod.ts";
import { CONFIG_MAPS, type ConfigMap, DEPLOYMENTS, NAMESPACES } from "../../lib/resources/mod.ts";
import { FakeApi } from "../../lib/testing/mod.ts";

function cm(name: string, namespace = "ns", data: Record<string, string> = {}): ConfigMap {
  return { metadata: { name, namespace }, data };
}

async function rejects(p: Promise<unknown>, code: number, reason: string, message?: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(`${e.code} ${e.reason}`, `${code} ${reason}`, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

Deno.test("objects() and object() show what is stored, sorted by namespace and name, as copies", () => {
  const api = new FakeApi();
  api.seed(CONFIG_MAPS, cm("b", "ns"), cm("a", "other"), cm("a", "ns"));
  api.seed(NAMESPACES, { metadata: { name: "ns" } });
  const key = (o: ConfigMap) => `${o.metadata.namespace}/${o.metadata.name}`;
  assert.deepEqual(api.objects(CONFIG_MAPS).map(key), ["ns/a", "ns/b", "other/a"]);
  assert.deepEqual(api.objects(CONFIG_MAPS, "ns").map(key), ["ns/a", "ns/b"]);
  assert.equal(api.objects(NAMESPACES)[0]?.metadata.namespace, undefined, "cluster-scoped objects have none");
  api.objects(CONFIG_MAPS)[0]!.data = { changed: "locally" };
  api.object(CONFIG_MAPS, "a", "ns")!.data = { changed: "locally" };
  assert.deepEqual(api.object(CONFIG_MAPS, "a", "ns")?.data, {});
  assert.equal(api.object(CONFIG_MAPS, "a"), undefined, 'the default namespace is "default"');
});

Deno.test("an object without a name is refused: create with 422 Invalid, replace with a TypeError", async () => {
  const api = new FakeApi();
  await rejects(
    api.create(CONFIG_MAPS, { metadata: {} }),
    422,
    "Invalid",
    /metadata\.name or metadata\.generateName is required/,
  );
  await assert.rejects(api.replace(CONFIG_MAPS, { metadata: {} }), TypeError);
  assert.deepEqual(api.objects(CONFIG_MAPS), []);
});

Deno.test("replaceStatus writes only the status, bumps no generation, and is conditional on resourceVersion", async () => {
  const api = new FakeApi();
  const [d] = api.seed(DEPLOYMENTS, {
    metadata: { name: "web", namespace: "ns" },
    spec: { selector: {}, template: {}, replicas: 1 },
  });
  const written = await api.replaceStatus(DEPLOYMENTS, {
    ...d!,
    spec: { ...d!.spec, replicas: 5 },
    status: { readyReplicas: 1 },
  });
  assert.deepEqual(written.status, { readyReplicas: 1 });
  assert.equal(written.spec.replicas, 1, "the spec is not written through the status subresource");
  assert.equal(written.metadata.generation, 1);
  assert.notEqual(written.metadata.resourceVersion, d!.metadata.resourceVersion);
  await rejects(api.replaceStatus(DEPLOYMENTS, { ...d!, status: { readyReplicas: 2 } }), 409, "Conflict");
  assert.deepEqual(api.object(DEPLOYMENTS, "web", "ns")?.status, { readyReplicas: 1 });
  assert.deepEqual(
    api.requests.map((r) => `${r.verb} ${r.subresource ?? ""}`),
    ["update status", "update status"],
  );
});

Deno.test("dry runs of create, replace, patch and delete answer as if done and store nothing", async () => {
  const api = new FakeApi();
  const [stored] = api.seed(CONFIG_MAPS, cm("a", "ns", { k: "1" }));
  const rv = api.resourceVersion;
  const created = await api.create(CONFIG_MAPS, cm("b"), { dryRun: true });
  assert.equal(created.metadata.name, "b");
  assert.equal(created.metadata.resourceVersion, undefined, "a dry run is given no resourceVersion");
  const replaced = await api.replace(CONFIG_MAPS, { ...stored!, data: { k: "2" } }, { dryRun: true });
  assert.equal(replaced.data?.k, "2");
  const patched = await api.patch(CONFIG_MAPS, "a", { data: { k: "3" } }, {
    type: "merge",
    namespace: "ns",
    dryRun: true,
  });
  assert.equal(patched.data?.k, "3");
  await api.delete(CONFIG_MAPS, "a", { namespace: "ns", dryRun: true });
  assert.deepEqual(api.objects(CONFIG_MAPS), [stored]);
  assert.equal(api.resourceVersion, rv);
});

Deno.test("a delete whose uid or resourceVersion precondition fails is 409 Conflict and keeps the object", async () => {
  const api = new FakeApi();
  const [a] = api.seed(CONFIG_MAPS, cm("a"));
  const { uid, resourceVersion } = a!.metadata;
  await rejects(
    api.delete(CONFIG_MAPS, "a", { namespace: "ns", preconditions: { uid: "someone-else" } }),
    409,
    "Conflict",
    /configmaps "a": the object has been modified/,
  );
  await rejects(
    api.delete(CONFIG_MAPS, "a", { namespace: "ns", preconditions: { resourceVersion: "1" } }),
    409,
    "Conflict",
  );
  assert.ok(api.object(CONFIG_MAPS, "a", "ns"));
  await api.delete(CONFIG_MAPS, "a", {
    namespace: "ns",
    preconditions: { uid: uid!, resourceVersion: resourceVersion! },
  });
  assert.equal(api.object(CONFIG_MAPS, "a", "ns"), undefined);
});

Deno.test("deleting an object already being deleted changes nothing until its finalizers are gone", async () => {
  const api = new FakeApi();
  api.seed(CONFIG_MAPS, {
    ...cm("a"),
    metadata: { ...cm("a").metadata, finalizers: ["example.com/cleanup"] },
  });
  await api.delete(CONFIG_MAPS, "a", { namespace: "ns" });
  const terminating = api.object(CONFIG_MAPS, "a", "ns")!;
  assert.ok(terminating.metadata.deletionTimestamp);
  await api.delete(CONFIG_MAPS, "a", { namespace: "ns" });
  assert.deepEqual(
    api.object(CONFIG_MAPS, "a", "ns"),
    terminating,
    "same deletionTimestamp and resourceVersion",
  );
  await api.replace(CONFIG_MAPS, { ...terminating, metadata: { ...terminating.metadata, finalizers: [] } });
  assert.equal(api.object(CONFIG_MAPS, "a", "ns"), undefined, "removed with its last finalizer");
});

Deno.test("a malformed selector is 400 BadRequest; a field FakeApi cannot select on is a TypeError naming it", async () => {
  const api = new FakeApi();
  await rejects(
    api.list(CONFIG_MAPS, { labelSelector: "app in web" }),
    400,
    "BadRequest",
    /Invalid label selector requirement "app in web"/,
  );
  await rejects(api.list(CONFIG_MAPS, { fieldSelector: "metadata.name" }), 400, "BadRequest");
  await rejects(api.watch(CONFIG_MAPS, { labelSelector: "a=(b" }), 400, "BadRequest");
  await assert.rejects(
    api.list(CONFIG_MAPS, { fieldSelector: "status.phase=Running" }),
    TypeError,
    'Field selector on "status.phase" is not supported here',
  );
  assert.equal(api.openWatches, 0);
});

Deno.test("a write that changes nothing keeps the resourceVersion and sends no watch event", async () => {
  const api = new FakeApi();
  const [a] = api.seed(CONFIG_MAPS, cm("a", "ns", { k: "1" }));
  const stream = await api.watch(CONFIG_MAPS, { resourceVersion: api.resourceVersion });
  const same = await api.patch(CONFIG_MAPS, "a", { data: { k: "1" } }, { type: "merge", namespace: "ns" });
  const replaced = await api.replace(CONFIG_MAPS, a!);
  assert.equal(same.metadata.resourceVersion, a!.metadata.resourceVersion);
  assert.equal(replaced.metadata.resourceVersion, a!.metadata.resourceVersion);
  assert.equal(api.resourceVersion, a!.metadata.resourceVersion);
  await api.patch(CONFIG_MAPS, "a", { data: { k: "2" } }, { type: "merge", namespace: "ns" });
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  const first = JSON.parse((await reader.read()).value!.split("\n")[0]!);
  assert.equal(first.object.data.k, "2", "the first event is the real change");
  await reader.cancel();
});

Deno.test("patching a missing object is 404 NotFound; only apply creates, and not through a subresource", async () => {
  const api = new FakeApi();
  for (const type of ["merge", "strategic", "json"] as const) {
    await rejects(
      api.patch(CONFIG_MAPS, "missing", type === "json" ? [] : {}, { type, namespace: "ns" }),
      404,
      "NotFound",
      /configmaps "missing" not found/,
    );
  }
  await rejects(
    api.patch(CONFIG_MAPS, "missing", { status: {} }, {
      type: "apply",
      fieldManager: "me",
      namespace: "ns",
      subresource: "status",
    }),
    404,
    "NotFound",
  );
  assert.deepEqual(api.objects(CONFIG_MAPS), []);
});
