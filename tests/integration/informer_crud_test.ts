// An Informer against the real kube-apiserver delivers create, update and delete of ConfigMaps and of
// a custom resource (the Foo CRD from crds/) to its handlers with the server's objects, and its store
// follows the server.
import assert from "node:assert/strict";
import { Informer } from "../../lib/cache/mod.ts";
import {
  CONFIG_MAPS,
  type KubeObject,
  type ResourceRef,
  type UnstructuredObject,
} from "../../lib/resources/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { createNamespace, eventually } from "../_util/testenv.ts";
import { installFooCrd } from "../_util/sample_controller.ts";
import type { DeepReadonly } from "../../lib/resources/mod.ts";

const FOOS: ResourceRef = {
  group: "samplecontroller.k8s.io",
  version: "v1alpha1",
  plural: "foos",
  kind: "Foo",
  namespaced: true,
};

/** One handler call, reduced to what the assertions compare. */
type Call =
  | { type: "add"; object: DeepReadonly<KubeObject> }
  | { type: "update"; oldObject: DeepReadonly<KubeObject>; object: DeepReadonly<KubeObject> }
  | { type: "delete"; object: DeepReadonly<KubeObject>; finalStateUnknown: boolean };

/**
 * Runs an informer for `ref` in `namespace`, records its handler calls, creates, updates and deletes
 * one object built by `make(value)`, and checks each call against what the server returned.
 */
async function createUpdateDelete(
  ref: ResourceRef,
  namespace: string,
  make: (value: number) => KubeObject,
  valueOf: (object: DeepReadonly<KubeObject>) => unknown,
): Promise<void> {
  await using client = await adminClient();
  const informer = new Informer(client, ref, { namespace });
  const calls: Call[] = [];
  informer.subscribe({
    onAdd: (object) => void calls.push({ type: "add", object }),
    onUpdate: (oldObject, object) => void calls.push({ type: "update", oldObject, object }),
    onDelete: (object, info) => void calls.push({ type: "delete", object, ...info }),
  });
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  await using _stop = {
    async [Symbol.asyncDispose]() {
      stop.abort();
      await running;
    },
  };
  await informer.ready(AbortSignal.timeout(15_000));
  assert.equal(informer.store.size, 0, "the namespace starts empty");

  const created = await client.create(ref, make(1), { namespace });
  const name = created.metadata.name ?? "";
  const added = await eventually(() => calls.find((c) => c.type === "add"), { message: "onAdd" });
  assert.equal(added.object.metadata.uid, created.metadata.uid);
  assert.equal(added.object.metadata.resourceVersion, created.metadata.resourceVersion);
  assert.equal(valueOf(added.object), 1);
  assert.equal(informer.store.getByName(name, namespace), added.object);

  const updated = await client.replace(ref, withValue(make(2), created), { namespace });
  const update = await eventually(() => calls.find((c) => c.type === "update"), { message: "onUpdate" });
  assert.ok(update.type === "update");
  assert.equal(valueOf(update.oldObject), 1);
  assert.equal(update.oldObject.metadata.resourceVersion, created.metadata.resourceVersion);
  assert.equal(valueOf(update.object), 2);
  assert.equal(update.object.metadata.resourceVersion, updated.metadata.resourceVersion);
  assert.equal(
    informer.store.getByName(name, namespace)?.metadata.resourceVersion,
    updated.metadata.resourceVersion,
  );

  await client.delete(ref, name, { namespace });
  const deleted = await eventually(() => calls.find((c) => c.type === "delete"), { message: "onDelete" });
  assert.ok(deleted.type === "delete");
  assert.equal(deleted.finalStateUnknown, false, "a watched delete has a known final state");
  assert.equal(deleted.object.metadata.uid, created.metadata.uid);
  assert.equal(valueOf(deleted.object), 2);
  assert.equal(informer.store.size, 0);
  assert.deepEqual(calls.map((c) => c.type), ["add", "update", "delete"], "one call per change, in order");
  assert.equal(
    calls.some((c) => c.object.metadata.managedFields !== undefined),
    false,
    "managedFields are stripped before caching",
  );
}

/** `fresh` with the identity (name, resourceVersion) of `current`, ready for a conditional replace. */
function withValue(fresh: KubeObject, current: KubeObject): KubeObject {
  return {
    ...fresh,
    metadata: { ...fresh.metadata, resourceVersion: current.metadata.resourceVersion ?? "" },
  };
}

Deno.test("an informer on ConfigMaps hands onAdd, onUpdate and onDelete the server's objects", async () => {
  await using ns = await createNamespace("inf-cm");
  await createUpdateDelete(
    CONFIG_MAPS,
    ns.name,
    (v) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { v: String(v) } }),
    (o) => Number(((o as UnstructuredObject).data as Record<string, string> | undefined)?.v),
  );
});

Deno.test("an informer on Foo custom resources hands onAdd, onUpdate and onDelete the server's objects", async () => {
  await installFooCrd();
  await using ns = await createNamespace("inf-foo");
  await createUpdateDelete(
    FOOS,
    ns.name,
    (v) => ({
      apiVersion: "samplecontroller.k8s.io/v1alpha1",
      kind: "Foo",
      metadata: { name: "foo" },
      spec: { deploymentName: "foo", replicas: v },
    }),
    (o) => ((o as UnstructuredObject).spec as { replicas?: number } | undefined)?.replicas,
  );
});
