import assert from "node:assert/strict";
import type { KubeObject } from "../../lib/client/types.ts";
import { containsFields } from "../../lib/sample_controller/drift.ts";
import { isControlledBy, ownerFooKey } from "../../lib/sample_controller/ownership.ts";
import { fooKeysForDeployment, fooUpdateNeedsSync } from "../../lib/sample_controller/triggers.ts";
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
      ...(owner ? { ownerReferences: [{ uid: "u", controller: true, ...owner }] } : {}),
    },
  };
}
const fooOwner = { apiVersion: "samplecontroller.k8s.io/v1alpha1", kind: "Foo", name: "f" };

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

Deno.test("Deployment events map to the controlling Foo's key", () => {
  assert.deepEqual(fooKeysForDeployment(undefined, dep("1", fooOwner)), ["ns1/f"]);
  assert.deepEqual(fooKeysForDeployment(dep("1", fooOwner), dep("2", fooOwner)), ["ns1/f"]);
});

Deno.test("resync updates (same resourceVersion) of a Deployment are skipped", () => {
  assert.deepEqual(fooKeysForDeployment(dep("1", fooOwner), dep("1", fooOwner)), []);
});

Deno.test("Deployments controlled by something else, or by a Foo of another group, map to nothing", () => {
  assert.deepEqual(fooKeysForDeployment(undefined, dep("1")), []);
  assert.deepEqual(fooKeysForDeployment(undefined, dep("1", { ...fooOwner, kind: "ReplicaSet" })), []);
  assert.deepEqual(fooKeysForDeployment(undefined, dep("1", { ...fooOwner, apiVersion: "other.io/v1" })), []);
  assert.deepEqual(fooKeysForDeployment(undefined, dep("1", { ...fooOwner, controller: false })), []);
});

Deno.test("a Deployment moving from one Foo to another syncs both", () => {
  assert.deepEqual(fooKeysForDeployment(dep("1", fooOwner), dep("2", { ...fooOwner, name: "g" })), [
    "ns1/f",
    "ns1/g",
  ]);
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
  assert.equal(ownerFooKey({ metadata: {} }), undefined);
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
