import assert from "node:assert/strict";
import {
  AlreadyOwnedError,
  controllerReference,
  isControlledBy,
  requestForController,
  setControllerReference,
} from "../../lib/controller/mod.ts";
import { CONFIG_MAPS, type ConfigMap, DEPLOYMENTS } from "../../lib/resources/mod.ts";

const owner: ConfigMap = { metadata: { name: "source", namespace: "ns", uid: "uid-1" } };

Deno.test("controllerReference takes apiVersion and kind from the ref and refuses an owner without uid", () => {
  assert.deepEqual(controllerReference(owner, CONFIG_MAPS), {
    apiVersion: "v1",
    kind: "ConfigMap",
    name: "source",
    uid: "uid-1",
    controller: true,
    blockOwnerDeletion: true,
  });
  assert.equal(controllerReference({ metadata: { name: "d", uid: "u" } }, DEPLOYMENTS).apiVersion, "apps/v1");
  assert.throws(
    () => controllerReference({ metadata: { name: "new" } }, CONFIG_MAPS),
    /Cannot reference ConfigMap "new" as an owner: it has no metadata\.uid/,
  );
});

Deno.test("setControllerReference returns a copy, keeps other owners and refuses a second controller", () => {
  const other = { apiVersion: "v1", kind: "Secret", name: "s", uid: "uid-s" };
  const dependent: ConfigMap = { metadata: { name: "copy", namespace: "ns", ownerReferences: [other] } };
  const owned = setControllerReference(dependent, owner, CONFIG_MAPS);
  assert.equal(dependent.metadata.ownerReferences?.length, 1, "the input is not modified");
  assert.deepEqual(owned.metadata.ownerReferences?.map((o) => o.uid), ["uid-s", "uid-1"]);
  assert.deepEqual(
    setControllerReference(owned, owner, CONFIG_MAPS).metadata.ownerReferences?.map((o) => o.uid),
    ["uid-s", "uid-1"],
    "setting the same owner again replaces its reference",
  );
  const rival: ConfigMap = { metadata: { name: "rival", namespace: "ns", uid: "uid-2" } };
  assert.throws(() => setControllerReference(owned, rival, CONFIG_MAPS), (e: unknown) => {
    return e instanceof AlreadyOwnedError && e.existing.uid === "uid-1" &&
      /already controlled by ConfigMap "source"/.test(e.message);
  });
});

Deno.test("isControlledBy never matches an owner without uid to a reference without uid", () => {
  const owned = setControllerReference({ metadata: { name: "copy", namespace: "ns" } }, owner, CONFIG_MAPS);
  assert.equal(isControlledBy(owned, owner), true);
  assert.equal(isControlledBy(owned, { metadata: { name: "source", namespace: "ns", uid: "other" } }), false);
  // A hand-written reference without uid, and an owner read without uid: undefined === undefined must not match.
  const sloppy = { metadata: { name: "x", ownerReferences: [{ controller: true } as never] } };
  assert.equal(isControlledBy(sloppy, { metadata: { name: "source" } }), false);
  assert.equal(isControlledBy({ metadata: {} }, { metadata: { uid: "" } }), false);
});

Deno.test("requestForController maps an owned object to its controller of the primary kind only", () => {
  const owned = setControllerReference({ metadata: { name: "copy", namespace: "ns" } }, owner, CONFIG_MAPS);
  assert.deepEqual(requestForController(owned, CONFIG_MAPS), { namespace: "ns", name: "source" });
  assert.equal(requestForController(owned, DEPLOYMENTS), undefined);
});

Deno.test("setControllerReference refuses a namespaced owner in another namespace, which the GC reads as gone", () => {
  // The garbage collector looks the owner up in the dependent's namespace; not finding it there, it
  // deletes the dependent. A cluster-scoped owner may own objects in any namespace.
  const elsewhere: ConfigMap = { metadata: { name: "copy", namespace: "other" } };
  assert.throws(
    () => setControllerReference(elsewhere, owner, CONFIG_MAPS),
    (e: unknown) =>
      e instanceof TypeError &&
      /ConfigMap "source" in namespace "ns" cannot own an object in namespace "other"/.test(e.message),
  );
  const clusterOwner = { metadata: { name: "team", uid: "uid-t" } };
  const team = { group: "example.com", version: "v1", plural: "teams", kind: "Team", namespaced: false };
  assert.ok(isControlledBy(setControllerReference(elsewhere, clusterOwner, team), clusterOwner));
  const sameNamespace = setControllerReference(
    { metadata: { name: "copy", namespace: "ns" } },
    owner,
    CONFIG_MAPS,
  );
  assert.ok(isControlledBy(sameNamespace, owner));
});
