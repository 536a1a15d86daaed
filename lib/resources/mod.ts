/**
 * Typed Kubernetes resources: TypeScript types of the kinds a controller touches, generated from
 * kube-apiserver's OpenAPI v3 (`deno task gen:resources`; see the header of each file for the version),
 * and a typed {@linkcode ResourceRef} per kind, so `client.get(CONFIG_MAPS, name)` resolves to a
 * `ConfigMap` and `informers.informer(DEPLOYMENTS)` is an `Informer<Deployment>` with no cast.
 *
 * Generated kinds: ConfigMap, Secret, Pod, Service, ServiceAccount, Namespace, Node, PersistentVolumeClaim
 * (core/v1); Deployment, StatefulSet, DaemonSet, ReplicaSet (apps/v1); Job, CronJob (batch/v1); Event
 * (events.k8s.io/v1); Lease (coordination.k8s.io/v1); CustomResourceDefinition (apiextensions.k8s.io/v1);
 * ValidatingWebhookConfiguration, MutatingWebhookConfiguration (admissionregistration.k8s.io/v1); plus
 * every type they use and `metav1.Condition`. Types for your own CRDs come from `deno task gen:crd` (see
 * lib/codegen).
 * @module
 */
export type * from "./admissionregistration_v1.ts";
export type * from "./apiextensions_v1.ts";
export type * from "./apimachinery.ts";
export type * from "./apps_v1.ts";
export type * from "./batch_v1.ts";
export type * from "./coordination_v1.ts";
export type * from "./core_v1.ts";
export type * from "./events_v1.ts";
export type * from "./scheduling_v1alpha3.ts";
export * from "./refs.ts";
export { apiVersionOf } from "./api_version.ts";
export type * from "./object.ts";
export { type DeepMutable, type DeepReadonly, mutableCopy } from "./deep_readonly.ts";
