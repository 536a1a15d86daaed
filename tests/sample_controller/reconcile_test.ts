import assert from "node:assert/strict";
import { ApiError } from "../../lib/client/api_error.ts";
import { desiredDeployment } from "../../lib/sample_controller/desired_deployment.ts";
import { reconcileFoo, ResourceExistsError } from "../../lib/sample_controller/reconcile.ts";
import type { Deployment, Foo, FooStatus } from "../../lib/sample_controller/types.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";
import { Controller } from "../../lib/controller/mod.ts";
import { FOOS } from "../../lib/sample_controller/types.ts";
import { fooTriggers } from "../../lib/sample_controller/triggers.ts";
import { FakeInformers } from "../controller/fake_informers.ts";
import { FakeApplyClient, FakeDeployments, FakeRecorder, FakeStore, makeFoo } from "./fakes.ts";

const KEY = "ns1/example-foo";

function setup(foo: Foo | undefined, ...deployments: Deployment[]) {
  const client = new FakeApplyClient();
  const recorder = new FakeRecorder();
  const clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5));
  const deps = {
    foos: foo ? new FakeStore(foo) : new FakeStore<Foo>(),
    deployments: new FakeDeployments(...deployments),
    client,
    recorder,
    clock,
  };
  return { deps, client, recorder, clock };
}

/** A live Deployment as the server stores ours: the desired fields plus defaults and a status. */
function liveDeployment(foo: Foo, available: number): Deployment {
  const dep = desiredDeployment(foo);
  dep.metadata = { ...dep.metadata, uid: "dep-uid", resourceVersion: "5", annotations: { "x/y": "z" } };
  dep.spec = {
    ...dep.spec,
    replicas: dep.spec?.replicas ?? 1,
    strategy: { type: "RollingUpdate" },
    template: {
      metadata: { labels: { app: "nginx", controller: foo.metadata.name ?? "" } },
      spec: { containers: [{ name: "nginx", image: "nginx:latest", imagePullPolicy: "Always" }] },
    },
  };
  dep.status = { availableReplicas: available, replicas: available };
  return dep;
}

function syncedStatus(available: number, desired: number, since = "2025-12-31T00:00:00Z"): FooStatus {
  const ready = available === desired;
  return {
    availableReplicas: available,
    observedGeneration: 1,
    conditions: [{
      type: "Ready",
      status: ready ? "True" : "False",
      observedGeneration: 1,
      lastTransitionTime: since,
      reason: ready ? "Available" : "Progressing",
      message: `Deployment "example-foo" has ${available}/${desired} available replicas`,
    }],
  };
}

Deno.test("a Foo that is gone from the cache is a no-op", async () => {
  const { deps, client, recorder } = setup(undefined);
  assert.deepEqual(await reconcileFoo(KEY, deps), { kind: "gone" });
  assert.equal(client.calls.length, 0);
  assert.equal(recorder.events.length, 0);
});

Deno.test("a Foo being deleted is left to the garbage collector", async () => {
  const foo = makeFoo();
  foo.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
  const { deps, client } = setup(foo);
  assert.deepEqual(await reconcileFoo(KEY, deps), { kind: "gone" });
  assert.equal(client.calls.length, 0);
});

Deno.test("a new Foo gets its Deployment created (POST), a status and a Synced event", async () => {
  const foo = makeFoo({ replicas: 2 });
  const { deps, client, recorder } = setup(foo);
  const signal = new AbortController().signal;
  const result = await reconcileFoo(KEY, deps, { signal });
  assert.deepEqual(result, { kind: "synced", deploymentApplied: true, statusWritten: true, retained: [] });
  const [create] = client.callsTo("deployments");
  assert.ok(create);
  assert.equal(create.verb, "create");
  assert.equal(create.name, "example-foo");
  assert.deepEqual(create.body, desiredDeployment(foo));
  assert.deepEqual(create.options, { namespace: "ns1", fieldManager: "kubeloop-sample-controller", signal });
  const statusCalls = client.callsTo("foos", "status");
  assert.equal(statusCalls.length, 1);
  assert.deepEqual(statusCalls[0]?.body, {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name: "example-foo", namespace: "ns1" },
    status: syncedStatus(0, 2, "2026-01-02T03:04:05Z"),
  });
  assert.equal(statusCalls[0]?.options.fieldManager, "kubeloop-sample-controller");
  assert.deepEqual(recorder.events, [{
    type: "Normal",
    reason: "Synced",
    action: "Sync",
    note: "Foo synced successfully",
    regarding: KEY,
  }]);
});

Deno.test("an in-sync Deployment and unchanged status cause no write at all, only the Synced event", async () => {
  const foo = makeFoo();
  foo.status = syncedStatus(1, 1);
  const { deps, client, recorder } = setup(foo, liveDeployment(foo, 1));
  const result = await reconcileFoo(KEY, deps);
  assert.deepEqual(result, { kind: "synced", deploymentApplied: false, statusWritten: false, retained: [] });
  assert.equal(client.calls.length, 0);
  assert.deepEqual(recorder.reasons(), ["Normal/Synced"]);
});

Deno.test("replica drift on our Deployment is corrected by applying the Foo's replicas", async () => {
  const foo = makeFoo({ replicas: 3 });
  foo.status = syncedStatus(1, 3);
  const live = liveDeployment(foo, 1);
  live.spec = { ...live.spec, replicas: 1 };
  const { deps, client } = setup(foo, live);
  const result = await reconcileFoo(KEY, deps);
  assert.equal(result.kind === "synced" && result.deploymentApplied, true);
  const applies = client.callsTo("deployments");
  assert.equal(applies.length, 1);
  assert.equal((applies[0]?.body as Deployment).spec?.replicas, 3);
});

Deno.test("a hand-edited image on our Deployment is restored", async () => {
  const foo = makeFoo();
  foo.status = syncedStatus(1, 1);
  const live = liveDeployment(foo, 1);
  live.spec!.template!.spec!.containers = [{ name: "nginx", image: "nginx:1.25" }];
  const { deps, client } = setup(foo, live);
  const result = await reconcileFoo(KEY, deps);
  assert.equal(result.kind === "synced" && result.deploymentApplied, true);
  const applies = client.callsTo("deployments");
  assert.equal(applies.length, 1);
  const containers = (applies[0]?.body as Deployment).spec?.template?.spec?.containers;
  assert.deepEqual(containers?.map((c) => [c.name, c.image]), [["nginx", "nginx:latest"]]);
  const options = applies[0]?.options;
  assert.equal(
    options && "force" in options && options.force,
    true,
    "forced, so our image wins over the hand edit",
  );
});

Deno.test("foreign additions (annotations, a sidecar, extra labels) are not drift and are left alone", async () => {
  const foo = makeFoo();
  foo.status = syncedStatus(1, 1);
  const live = liveDeployment(foo, 1);
  live.metadata.labels = { ...live.metadata.labels, team: "a" };
  live.spec!.template!.spec!.containers!.push({ name: "sidecar", image: "busybox" });
  const { deps, client } = setup(foo, live);
  await reconcileFoo(KEY, deps);
  assert.equal(client.calls.length, 0);
});

Deno.test("an unowned Deployment of that name: Warning event, Ready=False condition, then a thrown error", async () => {
  const foo = makeFoo();
  const unowned = liveDeployment(foo, 1);
  unowned.metadata.ownerReferences = [];
  const { deps, client, recorder } = setup(foo, unowned);
  await assert.rejects(() => reconcileFoo(KEY, deps), (error: unknown) => {
    assert.ok(error instanceof ResourceExistsError);
    assert.equal(error.message, 'Resource "example-foo" already exists and is not managed by Foo');
    assert.equal(error.deployment, "ns1/example-foo");
    return true;
  });
  assert.deepEqual(recorder.events.map((e) => [e.type, e.reason, e.note]), [
    ["Warning", "ErrResourceExists", 'Resource "example-foo" already exists and is not managed by Foo'],
  ]);
  assert.equal(client.callsTo("deployments").length, 0);
  const status = client.callsTo("foos", "status");
  assert.equal(status.length, 1);
  const written = (status[0]?.body as Foo).status;
  assert.equal(written?.conditions?.[0]?.reason, "ErrResourceExists");
  assert.equal(written?.conditions?.[0]?.status, "False");
});

Deno.test("a Deployment controlled by another Foo (UID mismatch) counts as not ours", async () => {
  const foo = makeFoo();
  const other = liveDeployment(makeFoo({ name: "other" }), 1);
  other.metadata.name = "example-foo";
  const { deps, client } = setup(foo, other);
  await assert.rejects(() => reconcileFoo(KEY, deps), ResourceExistsError);
  assert.equal(client.callsTo("deployments").length, 0);
});

Deno.test("a repeated conflict with the condition already set writes no status but still throws", async () => {
  const foo = makeFoo();
  const unowned = liveDeployment(foo, 1);
  delete unowned.metadata.ownerReferences;
  const { deps, client, clock } = setup(foo, unowned);
  await assert.rejects(() => reconcileFoo(KEY, deps), ResourceExistsError);
  foo.status = (client.calls[0]?.body as Foo).status!;
  await clock.advance(60_000);
  await assert.rejects(() => reconcileFoo(KEY, deps), ResourceExistsError);
  assert.equal(client.calls.length, 1);
});

Deno.test("an empty deploymentName sets Ready=False/InvalidSpec with a Warning and resolves (no retry)", async () => {
  const foo = makeFoo({ deploymentName: "" });
  const { deps, client, recorder } = setup(foo);
  assert.deepEqual(await reconcileFoo(KEY, deps), { kind: "invalid", statusWritten: true });
  assert.deepEqual(recorder.reasons(), ["Warning/InvalidSpec"]);
  assert.equal(client.callsTo("deployments").length, 0);
  const written = (client.calls[0]?.body as Foo).status;
  assert.equal(written?.conditions?.[0]?.reason, "InvalidSpec");
  foo.status = written!;
  assert.deepEqual(await reconcileFoo(KEY, deps), { kind: "invalid", statusWritten: false });
});

Deno.test("a status change is written exactly once, keeping lastTransitionTime while Ready does not flip", async () => {
  const foo = makeFoo({ replicas: 2 });
  foo.status = syncedStatus(0, 2, "2025-12-31T00:00:00Z");
  const { deps, client } = setup(foo, liveDeployment(foo, 1));
  await reconcileFoo(KEY, deps);
  const writes = client.callsTo("foos", "status");
  assert.equal(writes.length, 1);
  assert.deepEqual((writes[0]?.body as Foo).status, syncedStatus(1, 2, "2025-12-31T00:00:00Z"));
});

Deno.test("the status apply body carries only our fields and the Ready condition, never others' conditions", async () => {
  const foo = makeFoo({ replicas: 2 });
  const other = { type: "Other", status: "True" as const, reason: "SetByAnotherManager" };
  foo.status = { ...syncedStatus(0, 2, "2025-12-31T00:00:00Z"), conditions: [other] };
  const { deps, client } = setup(foo, liveDeployment(foo, 1));
  await reconcileFoo(KEY, deps);
  const writes = client.callsTo("foos", "status");
  assert.equal(writes.length, 1);
  assert.deepEqual((writes[0]?.body as Foo).status, syncedStatus(1, 2, "2026-01-02T03:04:05Z"));
});

Deno.test("another manager's condition next to an up-to-date Ready is no reason to write status", async () => {
  const foo = makeFoo();
  const synced = syncedStatus(1, 1);
  foo.status = { ...synced, conditions: [{ type: "Other", status: "False" }, ...synced.conditions!] };
  const { deps, client } = setup(foo, liveDeployment(foo, 1));
  assert.deepEqual(await reconcileFoo(KEY, deps), {
    kind: "synced",
    deploymentApplied: false,
    statusWritten: false,
    retained: [],
  });
  assert.equal(client.calls.length, 0);
});

Deno.test("Ready flips to True when available replicas reach the desired count, with a new transition time", async () => {
  const foo = makeFoo({ replicas: 2 });
  foo.status = syncedStatus(1, 2, "2025-12-31T00:00:00Z");
  const { deps, client } = setup(foo, liveDeployment(foo, 2));
  await reconcileFoo(KEY, deps);
  assert.deepEqual((client.calls[0]?.body as Foo).status, syncedStatus(2, 2, "2026-01-02T03:04:05Z"));
});

Deno.test("a new spec generation updates observedGeneration even when nothing else changed", async () => {
  const foo = makeFoo();
  foo.status = syncedStatus(1, 1);
  foo.metadata.generation = 2;
  const { deps, client } = setup(foo, liveDeployment(foo, 1));
  await reconcileFoo(KEY, deps);
  const status = (client.callsTo("foos", "status")[0]?.body as Foo).status;
  assert.equal(status?.observedGeneration, 2);
  assert.equal(status?.conditions?.[0]?.observedGeneration, 2);
});

Deno.test("a changed deploymentName creates the new Deployment and retains the old one, reported, never deleted", async () => {
  const foo = makeFoo({ deploymentName: "second" });
  const old = liveDeployment(makeFoo(), 1);
  const { deps, client, recorder } = setup(foo, old);
  const result = await reconcileFoo(KEY, deps);
  assert.deepEqual(result, {
    kind: "synced",
    deploymentApplied: true,
    statusWritten: true,
    retained: ["example-foo"],
  });
  assert.deepEqual(client.callsTo("deployments").map((c) => c.name), ["second"]);
  assert.deepEqual(recorder.reasons(), ["Normal/DeploymentRetained", "Normal/Synced"]);
  assert.match(recorder.events[0]?.note ?? "", /"example-foo" is no longer spec\.deploymentName/);
});

Deno.test("a Foo deleted between the read and the status write resolves as gone", async () => {
  const foo = makeFoo();
  const { deps, client, recorder } = setup(foo, liveDeployment(foo, 1));
  client.failWith = new ApiError({ code: 404, reason: "NotFound", message: 'foos "example-foo" not found' });
  assert.deepEqual(await reconcileFoo(KEY, deps), { kind: "gone" });
  assert.deepEqual(recorder.reasons(), []);
});

Deno.test("an apply failure propagates so the queue retries with backoff", async () => {
  const foo = makeFoo();
  const { deps, client } = setup(foo);
  client.failWith = new ApiError({ code: 500, reason: "InternalError", message: "boom" });
  await assert.rejects(
    () => reconcileFoo(KEY, deps),
    (e: unknown) => e instanceof ApiError && e.code === 500,
  );

  // The same reconcile run by a controller with the default rate limiter: the rejection requeues the key
  // after 5 ms, then 10 ms (per-key exponential backoff), and the attempt after the fault clears applies.
  client.calls.length = 0;
  const clock = new FakeClock();
  const informers = new FakeInformers();
  const attempts: number[] = [];
  const stop = new AbortController();
  const c = new Controller<Foo>(informers, {
    name: "foo",
    ...fooTriggers(),
    clock,
    reconcile: async (_request, ctx) => {
      attempts.push(clock.now());
      // Without backoff this would spin forever inside one turn of the event loop; stop it so the
      // assertions below can fail instead of the test hanging.
      if (attempts.length > 10) return void stop.abort();
      await reconcileFoo(ctx.key, deps);
    },
  });
  informers.get<Foo>(FOOS).add(foo);
  informers.syncAll();
  const done = c.run({ signal: stop.signal });
  await flush();
  const start = attempts[0] ?? Number.NaN;
  assert.equal(attempts.length, 1, "the first attempt");
  await clock.advance(4);
  assert.equal(attempts.length, 1, "no retry before the 5 ms backoff");
  await clock.advance(1);
  assert.deepEqual(attempts.map((at) => at - start), [0, 5], "retried after 5 ms");
  client.failWith = undefined;
  await clock.advance(9);
  assert.equal(attempts.length, 2, "the second backoff is 10 ms");
  await clock.advance(1);
  assert.deepEqual(attempts.map((at) => at - start), [0, 5, 15]);
  assert.equal(client.callsTo("deployments").length, 3, "each attempt applied; the third succeeded");
  assert.equal(c.queue.numRequeues(KEY), 0, "success forgets the backoff");
  stop.abort();
  await done;
});

Deno.test("a Foo without spec.replicas reports readiness against the Deployment's replicas", async () => {
  const foo = makeFoo();
  delete foo.spec?.replicas;
  const live = liveDeployment(foo, 3);
  live.spec = { ...live.spec, replicas: 3 };
  const { deps, client } = setup(foo, live);
  await reconcileFoo(KEY, deps);
  assert.equal(client.callsTo("deployments").length, 0);
  const status = (client.calls[0]?.body as Foo).status;
  assert.equal(status?.conditions?.[0]?.status, "True");
  assert.equal(status?.availableReplicas, 3);
});

Deno.test("a Deployment the cache has not seen is never force-applied: create answers AlreadyExists, the sync requeues, nothing else is written", async () => {
  // Someone else's Deployment of that name exists on the server; our informer has not delivered it yet.
  const foo = makeFoo();
  const { deps, client, recorder } = setup(foo);
  client.createFailsWith = new ApiError({
    code: 409,
    reason: "AlreadyExists",
    message: 'deployments.apps "example-foo" already exists',
  });
  assert.deepEqual(await reconcileFoo(KEY, deps), { kind: "notCached", deployment: "ns1/example-foo" });
  assert.deepEqual(client.calls.map((c) => `${c.verb} ${c.ref.plural}`), ["create deployments"]);
  assert.equal(client.calls.some((c) => "force" in c.options), false, "no apply, forced or not");
  assert.deepEqual(recorder.events, [], "no event and no status until the cache shows whose it is");
});

Deno.test("only a Deployment this Foo controls is ever applied, and then with force", async () => {
  const foo = makeFoo({ replicas: 3 });
  const ours = liveDeployment(makeFoo({ replicas: 1 }), 1);
  const { deps, client } = setup(foo, ours);
  await reconcileFoo(KEY, deps);
  const [apply] = client.callsTo("deployments");
  assert.equal(apply?.verb, "patch");
  assert.deepEqual(apply?.options, {
    type: "apply",
    force: true,
    namespace: "ns1",
    fieldManager: "kubeloop-sample-controller",
  });
});

Deno.test("a create failure other than AlreadyExists propagates so the queue retries with backoff", async () => {
  const foo = makeFoo();
  const { deps, client } = setup(foo);
  client.createFailsWith = new ApiError({ code: 403, reason: "Forbidden", message: "no" });
  await assert.rejects(
    () => reconcileFoo(KEY, deps),
    (e: unknown) => e instanceof ApiError && e.code === 403,
  );
});
