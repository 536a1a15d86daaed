// KubeClient's REST verbs against the real kube-apiserver: paging, server-side apply, and the
// mapping of the server's error Status to ApiError.
import assert from "node:assert/strict";
import { ApiError } from "../../lib/client/mod.ts";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { installFooCrd } from "../_util/sample_controller.ts";
import { FOOS } from "../../lib/sample_controller/mod.ts";
import { createNamespace, kubectlOk } from "../_util/testenv.ts";

Deno.test("1,200 ConfigMaps list in three pages of 500 with every item present once", async () => {
  await using ns = await createNamespace("rest-paging");
  const items = Array.from({ length: 1200 }, (_, i) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${String(i).padStart(4, "0")}`, namespace: ns.name },
    data: { i: String(i) },
  }));
  await kubectlOk(["create", "-f", "-"], {
    stdin: JSON.stringify({ apiVersion: "v1", kind: "List", items }),
  });

  const requests: string[] = [];
  await using client = await adminClient({
    metrics: { observe: (o) => requests.push(`${o.method} ${o.code}`) },
  });
  const names: string[] = [];
  let pages = 0;
  for await (const page of client.listAll(CONFIG_MAPS, { namespace: ns.name, limit: 500 })) {
    pages++;
    assert.equal(page.restarted, false);
    names.push(...page.items.map((i) => i.metadata.name ?? ""));
  }
  assert.equal(pages, 3);
  assert.deepEqual(requests, ["GET 200", "GET 200", "GET 200"]);
  assert.equal(names.length, 1200);
  assert.equal(new Set(names).size, 1200);
});

Deno.test("server-side apply creates then updates an object, with our field manager in managedFields", async () => {
  await using ns = await createNamespace("rest-apply");
  await using client = await adminClient();
  const desired = (value: string) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "applied", namespace: ns.name },
    data: { key: value },
  });
  const created = await client.patch(
    CONFIG_MAPS,
    "applied",
    desired("one"),
    {
      type: "apply",
      fieldManager: "kubeloop-test",
      namespace: ns.name,
    },
  );
  assert.equal(created.data?.["key"], "one");
  const updated = await client.patch(
    CONFIG_MAPS,
    "applied",
    desired("two"),
    {
      type: "apply",
      fieldManager: "kubeloop-test",
      namespace: ns.name,
      force: true,
    },
  );
  assert.equal(updated.data?.["key"], "two");
  assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
  const managers = (updated.metadata.managedFields as { manager: string; operation: string }[]).map((m) =>
    `${m.manager}/${m.operation}`
  );
  assert.deepEqual(managers, ["kubeloop-test/Apply"]);
});

Deno.test("404, 409 and 422 from the server map to the right ApiError", async () => {
  await using ns = await createNamespace("rest-errors");
  await using client = await adminClient();
  const cm = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "x", namespace: ns.name },
    data: { a: "1" },
  };

  const notFound = await client.get(CONFIG_MAPS, "missing", { namespace: ns.name }).catch((e) => e);
  assert.ok(notFound instanceof ApiError);
  assert.equal(notFound.code, 404);
  assert.ok(notFound.isNotFound);
  assert.equal(notFound.details?.name, "missing");

  const created = await client.create(CONFIG_MAPS, cm);
  const exists = await client.create(CONFIG_MAPS, cm).catch((e) => e);
  assert.ok(exists instanceof ApiError && exists.isAlreadyExists && exists.code === 409);

  await client.replace(CONFIG_MAPS, { ...created, data: { a: "2" } });
  const stale = await client.replace(CONFIG_MAPS, { ...created, data: { a: "3" } }).catch((e) => e);
  assert.ok(stale instanceof ApiError && stale.isConflict && stale.code === 409, String(stale));

  const invalid = await client.create(CONFIG_MAPS, {
    ...cm,
    metadata: { name: "Not_Valid", namespace: ns.name },
  }).catch((e) => e);
  assert.ok(invalid instanceof ApiError && invalid.isInvalid && invalid.code === 422);
  assert.ok((invalid.details?.causes ?? []).some((c: { field?: string }) => c.field === "metadata.name"));

  await client.delete(CONFIG_MAPS, "x", { namespace: ns.name, preconditions: { uid: "not-the-uid" } }).then(
    () => assert.fail("delete with a wrong uid precondition succeeded"),
    (e) => assert.ok(e instanceof ApiError && e.isConflict),
  );
  await client.delete(CONFIG_MAPS, "x", { namespace: ns.name });
  await assert.rejects(client.get(CONFIG_MAPS, "x", { namespace: ns.name }), (e: ApiError) => e.isNotFound);
});

Deno.test("a custom resource created without apiVersion and kind is accepted: the client fills them from the ref", async () => {
  await installFooCrd();
  await using ns = await createNamespace("typemeta");
  await using client = await adminClient();
  const foo = await client.create(FOOS, {
    metadata: { name: "bare", namespace: ns.name },
    spec: { deploymentName: "bare", replicas: 1 },
  });
  assert.equal(foo.kind, "Foo");
  assert.equal(foo.apiVersion, "samplecontroller.k8s.io/v1alpha1");
});
