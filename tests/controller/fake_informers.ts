import type { KubeObject, ResourceRef } from "../../lib/resources/object.ts";

// Moved to lib/testing; re-exported for the tests that import them from here.
export { FakeInformer, FakeInformers } from "../../lib/testing/mod.ts";

export const fooRef: ResourceRef = {
  group: "samplecontroller.k8s.io",
  version: "v1alpha1",
  plural: "foos",
  kind: "Foo",
  namespaced: true,
};
export const deploymentRef: ResourceRef = {
  group: "apps",
  version: "v1",
  plural: "deployments",
  kind: "Deployment",
  namespaced: true,
};
export const configMapRef: ResourceRef = {
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
};

/** A minimal object. */
export function obj(name: string, extra: Partial<KubeObject["metadata"]> = {}, namespace = "ns"): KubeObject {
  return { metadata: { name, namespace, resourceVersion: "1", ...extra } };
}
