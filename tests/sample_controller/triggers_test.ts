import assert from "node:assert/strict";
import type { KubeObject } from "../../lib/resources/object.ts";
import { Controller, type ReconcileRequest } from "../../lib/controller/mod.ts";
import { containsFields, isControlledBy } from "../../lib/controller/mod.ts";
import { fooTriggers, fooUpdateNeedsSync } from "../../lib/sample_controller/triggers.ts";
import { DEPLOYMENTS } from "../../lib/resources/mod.ts";
import { type Foo, FOOS } from "../../lib/sample_controller/types.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";
import { FakeInformers } from "../controller/fake_informers.ts";
import { makeFoo } from "./fakes.ts";

function dep(
  rv: string,
  owner?: { apiVersion: string; kind: string; name: string; controller?: boolean },
): KubeObject {
  return {
    metadata: {
      name: "d",
      namespace: "ns1",
      resourceVersion: rv,
      ...(owner ? { ownerReferences: [{ uid: `uid-${owner.name}`, controller: true, ...owner }] } : {}),
    },
  };
}
const fooOwner = { apiVersion: "samplecontroller.k8s.io/v1alpha1", kind: "Foo", name: "f" };

/** The Foo controller's triggers on fake informers: `synced()` returns and clears the keys reconciled since. */
async function wired(...foos: Foo[]) {
  const informers = new FakeInformers();
  const reconciled: string[] = [];
  const c = new Controller<Foo>(informers, {
    name: "foo",
    ...fooTriggers(),
    clock: new FakeClock(),
    reconcile: (r: ReconcileRequest) => {
      reconciled.push(`${r.namespace}/${r.name}`);
      return Promise.resolve();
    },
  });
  const fooInformer = informers.get<Foo>(FOOS);
  for (const foo of foos) fooInformer.add(foo);
  const stop = new AbortController();
  informers.syncAll();
  const done = c.run({ signal: stop.signal });
  await flush();
  return {
    foos: fooInformer,
    deployments: informers.get<KubeObject>(DEPLOYMENTS),
    synced: async () => {
      await flush();
      return reconciled.splice(0).sort();
    },
    async [Symbol.asyncDispose]() {
      stop.abort();
      await done;
    },
  };
}

Deno.test("a status-only update of a Foo (same generation) does not trigger a sync", () => {
  const old = makeFoo();
  const updated = { ...makeFoo(), status: { availableReplicas: 1 } };
  updated.metadata.resourceVersion = "11";
  assert.equal(fooUpdateNeedsSync(old, updated), false);
});

Deno.test("a spec update of a Foo (generation bumped) or a replaced Foo (new UID) triggers a sync", () => {
  const old = makeFoo();
  const bumped = makeFoo();
  bumped.metadata.generation = 2;
  assert.equal(fooUpdateNeedsSync(old, bumped), true);
  const replaced = makeFoo();
  replaced.metadata.uid = "other";
  assert.equal(fooUpdateNeedsSync(old, replaced), true);
});

Deno.test("wired into a controller, a Foo syncs at start and on spec changes, not on its own status writes", async () => {
  await using w = await wired(makeFoo());
  assert.deepEqual(await w.synced(), ["ns1/example-foo"]);
  const statusWritten = { ...makeFoo(), status: { availableReplicas: 1 } };
  statusWritten.metadata.resourceVersion = "11";
  w.foos.update(statusWritten);
  assert.deepEqual(await w.synced(), []);
  const respecced = makeFoo({ replicas: 3 });
  respecced.metadata.generation = 2;
  w.foos.update(respecced);
  assert.deepEqual(await w.synced(), ["ns1/example-foo"]);
});

Deno.test("wired into a controller, Deployment changes sync the controlling Foo, but resyncs do not", async () => {
  await using w = await wired();
  w.deployments.add(dep("1", fooOwner));
  assert.deepEqual(await w.synced(), ["ns1/f"]);
  w.deployments.update(dep("2", fooOwner));
  assert.deepEqual(await w.synced(), ["ns1/f"]);
  w.deployments.update(dep("2", fooOwner));
  assert.deepEqual(await w.synced(), [], "same resourceVersion: a periodic resync");
  w.deployments.remove(dep("2", fooOwner));
  assert.deepEqual(await w.synced(), ["ns1/f"]);
});

Deno.test("wired into a controller, Deployments controlled by something else, or by another group's Foo, sync nothing", async () => {
  await using w = await wired();
  w.deployments.add(dep("1"));
  w.deployments.remove(dep("1"));
  w.deployments.add(dep("2", { ...fooOwner, kind: "ReplicaSet" }));
  w.deployments.remove(dep("2"));
  w.deployments.add(dep("3", { ...fooOwner, apiVersion: "other.io/v1" }));
  w.deployments.remove(dep("3"));
  w.deployments.add(dep("4", { ...fooOwner, controller: false }));
  assert.deepEqual(await w.synced(), []);
});

Deno.test("wired into a controller, a Deployment moving from one Foo to another syncs both", async () => {
  await using w = await wired();
  w.deployments.add(dep("1", fooOwner));
  await w.synced();
  w.deployments.update(dep("2", { ...fooOwner, name: "g" }));
  assert.deepEqual(await w.synced(), ["ns1/f", "ns1/g"]);
});

Deno.test("ownership is a UID match on the controller reference", () => {
  const foo = makeFoo();
  const owned: KubeObject = {
    metadata: {
      ownerReferences: [{
        apiVersion: "x",
        kind: "Foo",
        name: "n",
        uid: "uid-example-foo",
        controller: true,
      }],
    },
  };
  assert.equal(isControlledBy(owned, foo), true);
  owned.metadata.ownerReferences![0]!.controller = false;
  assert.equal(isControlledBy(owned, foo), false);
  assert.equal(isControlledBy({ metadata: {} }, foo), false);
});

Deno.test("containsFields treats extra live fields as no drift and changed or missing ones as drift", () => {
  const desired = { a: 1, m: { k: "v" }, list: [{ name: "x", image: "i" }] };
  assert.equal(
    containsFields({
      a: 1,
      b: 2,
      m: { k: "v", k2: "w" },
      list: [{ name: "y" }, { name: "x", image: "i", p: 1 }],
    }, desired),
    true,
  );
  assert.equal(containsFields({ a: 2, m: { k: "v" }, list: [{ name: "x", image: "i" }] }, desired), false);
  assert.equal(containsFields({ a: 1, m: {}, list: [{ name: "x", image: "i" }] }, desired), false);
  assert.equal(containsFields({ a: 1, m: { k: "v" }, list: [{ name: "x", image: "j" }] }, desired), false);
  assert.equal(containsFields({ a: 1, m: { k: "v" } }, desired), false);
  assert.equal(containsFields(null, desired), false);
});
