import type { ResourceRef } from "./types.ts";

/** core/v1 ConfigMaps. */
export const CONFIG_MAPS: ResourceRef = {
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
};
/** core/v1 Namespaces. */
export const NAMESPACES: ResourceRef = {
  group: "",
  version: "v1",
  plural: "namespaces",
  kind: "Namespace",
  namespaced: false,
};
/** core/v1 Secrets. */
export const SECRETS: ResourceRef = {
  group: "",
  version: "v1",
  plural: "secrets",
  kind: "Secret",
  namespaced: true,
};
/** core/v1 ServiceAccounts. */
export const SERVICE_ACCOUNTS: ResourceRef = {
  group: "",
  version: "v1",
  plural: "serviceaccounts",
  kind: "ServiceAccount",
  namespaced: true,
};
/** apps/v1 Deployments. */
export const DEPLOYMENTS: ResourceRef = {
  group: "apps",
  version: "v1",
  plural: "deployments",
  kind: "Deployment",
  namespaced: true,
};
/** coordination.k8s.io/v1 Leases. */
export const LEASES: ResourceRef = {
  group: "coordination.k8s.io",
  version: "v1",
  plural: "leases",
  kind: "Lease",
  namespaced: true,
};
/** events.k8s.io/v1 Events. */
export const EVENTS: ResourceRef = {
  group: "events.k8s.io",
  version: "v1",
  plural: "events",
  kind: "Event",
  namespaced: true,
};
/** apiextensions.k8s.io/v1 CustomResourceDefinitions. */
export const CUSTOM_RESOURCE_DEFINITIONS: ResourceRef = {
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
};

/** The apiVersion string of a resource ref ("v1", "apps/v1"). */
export function apiVersionOf(ref: ResourceRef): string {
  return ref.group === "" ? ref.version : `${ref.group}/${ref.version}`;
}
