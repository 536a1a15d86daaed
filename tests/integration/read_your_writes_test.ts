// Read-your-writes against the real kube-apiserver: a controller's writes are counted at its client's
// transport, per object and verb, and must be exactly the minimum a new object needs, with no write
// repeated and none the server found nothing to change in, also while the source and the custom
// resource keep changing under the reconciles. Two controllers: the reference controller (Foo →
// Deployment) and a SecretCopy controller with a finalizer, conditions and indexes (tests/_util).
import assert from "node:assert/strict";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
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
import { adminClient } from "../_util/clients.ts";
import { installFooCrd } from "../_util/sample_controller.ts";
import {
  SECRET_COPIES,
  SECRET_COPY_CRD,
  type SecretCopy,
  secretCopyController,
} from "../_util/secret_copy.ts";
import { createNamespace, eventually, kubectlOk } from "../_util/testenv.ts";
import { print } from "../_util/print.ts";
import { needlessWrites, recordingClient, writeLines, type WriteRecord } from "../_util/write_log.ts";

/** Resolves once no write was recorded for `quietMs` (echoes of the last writes had time to arrive). */
async function quiet(writes: readonly WriteRecord[], quietMs = 3000, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = -1;
  while (Date.now() < deadline) {
    if (seen === writes.length) return;
    seen = writes.length;
    await new Promise((r) => setTimeout(r, quietMs));
  }
  throw new Error(`writes did not stop within ${timeoutMs} ms: ${writeLines(writes).join(", ")}`);
}

/** Runs `controller` on `factory` until the returned disposable is disposed. */
function running(factory: SharedInformerFactory, controller: Controller<never>): AsyncDisposable {
  const stop = new AbortController();
  factory.start(stop.signal);
  const done = controller.run({ signal: stop.signal });
  return {
    async [Symbol.asyncDispose]() {
      stop.abort();
      await done;
      await factory.stopped();
    },
  };
}

Deno.test("the reference controller writes a new Foo's Deployment once and each distinct status once", async () => {
  await installFooCrd();
  await using ns = await createNamespace("ryw-foo");
  await using admin = await adminClient();
  const { client, writes } = await recordingClient();
  await using _client = client;
  const factory = new SharedInformerFactory(client);
  const deploymentInformer = factory.informer<Deployment>(DEPLOYMENTS, {
    namespace: ns.name,
    indexers: { uid: (d) => [controllerOf(d)?.uid ?? ""].filter((uid) => uid !== "") },
  });
  const foos = factory.informer<Foo>(FOOS, { namespace: ns.name });
  const deployments: DeploymentReader = {
    get: (key) => deploymentInformer.store.get(key),
    controlledBy: (uid) => deploymentInformer.store.byIndex("uid", uid),
  };
  const reconciles: string[] = [];
  const controller = new Controller<Foo>(factory, {
    name: "foo",
    ...fooTriggers(),
    namespace: ns.name,
    reconcile: async (_request, ctx) => {
      reconciles.push(ctx.key);
      const result = await reconcileFoo(ctx.key, {
        foos: foos.store,
        deployments,
        client,
        recorder: { record: () => {} },
      }, { signal: ctx.signal });
      return result.kind === "notCached" ? { requeue: true } : {};
    },
  });
  await using _running = running(factory, controller as unknown as Controller<never>);
  await factory.waitForSync(AbortSignal.timeout(30_000));

  await admin.create(FOOS, {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name: "web", namespace: ns.name },
    spec: { deploymentName: "web", replicas: 1 },
  } as Foo);
  await eventually(async () => {
    const foo = await admin.get(FOOS, "web", { namespace: ns.name });
    return foo.status?.availableReplicas === 1 ? true : undefined;
  }, { timeoutMs: 90_000, message: "the Foo never reported 1 available replica" });
  await quiet(writes);
  print(`Foo: ${writes.length} writes in ${reconciles.length} reconciles: ${writeLines(writes).join(", ")}`);
  // The minimum: the Deployment's create, then the status twice (0/1 Progressing, then 1/1 Available).
  assert.deepEqual(writeLines(writes), [
    `create deployments/${ns.name}/web 201`,
    `patch foos/${ns.name}/web/status 200`,
    `patch foos/${ns.name}/web/status 200`,
  ]);
  assert.deepEqual(needlessWrites(writes), []);
});

Deno.test("a SecretCopy controller writes the minimum for a new copy set, none twice under churn, and cleans up", async () => {
  await kubectlOk(["apply", "-f", "-"], { stdin: JSON.stringify(SECRET_COPY_CRD) });
  await kubectlOk(["wait", "--for=condition=Established", "crd/secretcopies.kubeloop.test", "--timeout=30s"]);
  await using home = await createNamespace("ryw-home");
  await using t1 = await createNamespace("ryw-t1");
  await using t2 = await createNamespace("ryw-t2");
  await using t3 = await createNamespace("ryw-t3");
  await using t4 = await createNamespace("ryw-t4");
  await using admin = await adminClient();
  const { client, writes } = await recordingClient();
  await using _client = client;
  const factory = new SharedInformerFactory(client);
  const reconciles = new Map<string, number>();
  const controller = new Controller<SecretCopy>(
    factory,
    secretCopyController(factory, client, { reconciles, workers: 2 }),
  );
  await using _running = running(factory, controller as unknown as Controller<never>);
  await factory.waitForSync(AbortSignal.timeout(30_000));

  const key = `${home.name}/copy`;
  const data = (v: number) => ({ v: btoa(String(v)) });
  await admin.create(SECRETS, { metadata: { name: "source", namespace: home.name }, data: data(0) });
  await admin.create(SECRET_COPIES, {
    apiVersion: "kubeloop.test/v1",
    kind: "SecretCopy",
    metadata: { name: "copy", namespace: home.name },
    spec: { source: "source", targets: [t1.name, t2.name, t3.name] },
  });
  const converged = async (targets: string[], v: number) => {
    const sc = await admin.get(SECRET_COPIES, "copy", { namespace: home.name });
    if (sc.status?.observedGeneration !== sc.metadata.generation || sc.status?.copies !== targets.length) {
      return;
    }
    for (const target of targets) {
      const copy = await admin.get(SECRETS, "copy", { namespace: target }).catch(() => undefined);
      if (copy?.data?.v !== data(v).v) return;
    }
    return true;
  };
  await eventually(() => converged([t1.name, t2.name, t3.name], 0), { timeoutMs: 60_000 });
  await quiet(writes);
  print(`new SecretCopy: ${writes.length} writes in ${reconciles.get(key)} reconciles`);
  // Each phase's findings are collected, so one run reports every phase (and the old code's counts).
  const problems: string[] = [];
  const expect = (phase: string, got: readonly string[], want: readonly string[]) => {
    if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${phase}: got ${got.join(", ")}`);
  };
  // The minimum: finalizer, three creates, one status.
  expect(
    "new",
    writeLines(writes).sort(),
    [
      `create secrets/${t1.name}/copy 201`,
      `create secrets/${t2.name}/copy 201`,
      `create secrets/${t3.name}/copy 201`,
      `patch secretcopies/${home.name}/copy 200`,
      `patch secretcopies/${home.name}/copy/status 200`,
    ].sort(),
  );
  expect("first write", [writes[0]?.resource ?? ""], ["secretcopies"]);
  expect("last write", [writes.at(-1)?.subresource ?? ""], ["status"]);
  expect("needless (new)", needlessWrites(writes), []);

  // Churn: the source and the target list change while reconciles run, in rounds a few ms apart.
  const base = writes.length;
  for (let round = 1; round <= 6; round++) {
    await admin.patch(SECRETS, "source", { data: data(round) }, { type: "merge", namespace: home.name });
    const targets = [t1.name, t2.name, t3.name, ...(round % 2 === 1 ? [t4.name] : [])];
    await admin.patch(SECRET_COPIES, "copy", { spec: { targets } }, { type: "merge", namespace: home.name });
    await new Promise((r) => setTimeout(r, (round * 37) % 150));
  }
  await eventually(() => converged([t1.name, t2.name, t3.name], 6), { timeoutMs: 60_000 });
  await eventually(
    async () =>
      (await admin.get(SECRETS, "copy", { namespace: t4.name }).catch(() => undefined)) ? undefined : true,
    { timeoutMs: 30_000, message: "the copy in the dropped namespace was not deleted" },
  );
  await quiet(writes);
  print(`churn: ${writes.length - base} writes in ${reconciles.get(key)} reconciles in all`);
  expect("needless (churn)", needlessWrites(writes.slice(base)), []);

  // Deletion: the finalizer cleans the copies up, then lets the SecretCopy go.
  const before = writes.length;
  await admin.delete(SECRET_COPIES, "copy", { namespace: home.name });
  await eventually(
    async () =>
      (await admin.get(SECRET_COPIES, "copy", { namespace: home.name }).catch(() => undefined))
        ? undefined
        : true,
    { timeoutMs: 30_000, message: "the SecretCopy was not released" },
  );
  await quiet(writes);
  print(`deletion: ${writes.length - before} writes in ${reconciles.get(key)} reconciles in all`);
  expect(
    "deletion",
    writeLines(writes.slice(before)).sort(),
    [
      `delete secrets/${t1.name}/copy 200`,
      `delete secrets/${t2.name}/copy 200`,
      `delete secrets/${t3.name}/copy 200`,
      `patch secretcopies/${home.name}/copy 200`,
    ].sort(),
  );
  expect("needless (deletion)", needlessWrites(writes.slice(before)), []);
  assert.deepEqual(problems, []);
});
