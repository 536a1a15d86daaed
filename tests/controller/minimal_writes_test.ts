// Writes per new object are exactly the minimum on FakeApi, whichever of a write's answer and its watch
// event reaches the informers first: the reference controller (Foo → Deployment: one create, one status)
// and a SecretCopy controller with a finalizer and three targets (finalizer, three creates, one status),
// each in one reconcile; then a source change (three copies updated, no status) and the deletion (three
// copies deleted, the finalizer removed).
import assert from "node:assert/strict";
import { Controller, controllerOf } from "../../lib/controller/mod.ts";
import { DEPLOYMENTS, SECRETS } from "../../lib/resources/mod.ts";
import {
  type Deployment,
  type DeploymentReader,
  type Foo,
  FOOS,
  fooTriggers,
  reconcileFoo,
} from "../../lib/sample_controller/mod.ts";
import { type Order, settle, world } from "../_util/ryw_world.ts";
import { SECRET_COPIES, type SecretCopy, secretCopyController } from "../_util/secret_copy.ts";

for (const order of ["answer first", "echo first"] as const satisfies readonly Order[]) {
  Deno.test(`${order}: a new Foo costs one Deployment create and one status write, in one reconcile`, async () => {
    await using w = world(order);
    const deploymentInformer = w.factory.informer<Deployment>(DEPLOYMENTS, {
      indexers: { uid: (d) => [controllerOf(d)?.uid ?? ""].filter((uid) => uid !== "") },
    });
    const foos = w.factory.informer<Foo>(FOOS);
    w.watchStore("deployments", (key) => deploymentInformer.store.get(key)?.metadata.resourceVersion);
    w.watchStore("foos", (key) => foos.store.get(key)?.metadata.resourceVersion);
    const deployments: DeploymentReader = {
      get: (key) => deploymentInformer.store.get(key),
      controlledBy: (uid) => deploymentInformer.store.byIndex("uid", uid),
    };
    const reconciles: string[] = [];
    const c = new Controller<Foo>(w.factory, {
      name: "foo",
      ...fooTriggers(),
      clock: w.clock,
      reconcile: async (_r, ctx) => {
        reconciles.push(ctx.key);
        await reconcileFoo(ctx.key, {
          foos: foos.store,
          deployments,
          client: w.api,
          recorder: { record() {} },
        });
      },
    });
    w.api.seed(FOOS, {
      apiVersion: "samplecontroller.k8s.io/v1alpha1",
      kind: "Foo",
      metadata: { name: "web", namespace: "ns" },
      spec: { deploymentName: "web", replicas: 1 },
    } as Foo);
    if (order === "answer first") w.gate.close();
    w.run(c as unknown as Controller<never>);
    await settle(() => [reconciles, w.api.requests.length]);
    w.gate.open();
    await settle(() => [reconciles, w.api.requests.length]);
    assert.deepEqual(w.writes(), ["create deployments/ns/web", "patch foos/ns/web/status"]);
    assert.deepEqual(reconciles, ["ns/web"]);
    assert.equal(w.echoesFirst(), order === "echo first" ? 2 : 0, "the order under test happened");
  });

  Deno.test(`${order}: a SecretCopy to 3 namespaces costs 5 writes in one reconcile; updates and deletion the minimum`, async () => {
    await using w = world(order);
    const reconciles = new Map<string, number>();
    const c = new Controller<SecretCopy>(w.factory, {
      ...secretCopyController(w.factory, w.api, { reconciles }),
      clock: w.clock,
    });
    const copies = w.factory.informer(SECRET_COPIES);
    const secrets = w.factory.informer(SECRETS);
    w.watchStore("secretcopies", (key) => copies.store.get(key)?.metadata.resourceVersion);
    w.watchStore("secrets", (key) => secrets.store.get(key)?.metadata.resourceVersion);
    w.api.seed(SECRETS, { metadata: { name: "source", namespace: "home" }, data: { v: btoa("1") } });
    w.api.seed(SECRET_COPIES, {
      metadata: { name: "copy", namespace: "home" },
      spec: { source: "source", targets: ["t1", "t2", "t3"] },
    });
    if (order === "answer first") w.gate.close();
    w.run(c as unknown as Controller<never>);
    const quiet = () => settle(() => [[...reconciles], w.api.requests.length]);
    await quiet();
    w.gate.open();
    await quiet();
    assert.deepEqual(w.writes(), [
      "patch secretcopies/home/copy",
      "create secrets/t1/copy",
      "create secrets/t2/copy",
      "create secrets/t3/copy",
      "patch secretcopies/home/copy/status",
    ]);
    assert.equal(reconciles.get("home/copy"), 1);
    assert.equal(w.echoesFirst(), order === "echo first" ? 5 : 0, "the order under test happened");

    const before = w.writes().length + 1; // after the test's own edit of the source
    if (order === "answer first") w.gate.close();
    await w.api.patch(SECRETS, "source", { data: { v: btoa("2") } }, { type: "merge", namespace: "home" });
    await quiet();
    w.gate.open();
    await quiet();
    assert.deepEqual(w.writes().slice(before), [
      "patch secrets/t1/copy",
      "patch secrets/t2/copy",
      "patch secrets/t3/copy",
    ]);
    assert.equal(reconciles.get("home/copy"), 2);

    const deleting = w.writes().length + 1;
    if (order === "answer first") w.gate.close();
    await w.api.delete(SECRET_COPIES, "copy", { namespace: "home" });
    await quiet();
    w.gate.open();
    await quiet();
    assert.deepEqual(w.writes().slice(deleting), [
      "delete secrets/t1/copy",
      "delete secrets/t2/copy",
      "delete secrets/t3/copy",
      "patch secretcopies/home/copy",
    ]);
    assert.equal(reconciles.get("home/copy"), 3);
    assert.deepEqual(w.api.objects(SECRET_COPIES), []);
    assert.deepEqual(w.api.objects(SECRETS).map((s) => s.metadata.name), ["source"]);
  });
}
