import type { GroupVersionKind } from "./schema.ts";

/** The kinds kubeloop generates types and typed refs for (`deno task gen:resources`). */
export const CORE_KINDS: readonly GroupVersionKind[] = [
  { group: "", version: "v1", kind: "ConfigMap" },
  { group: "", version: "v1", kind: "Secret" },
  { group: "", version: "v1", kind: "Pod" },
  { group: "", version: "v1", kind: "Service" },
  { group: "", version: "v1", kind: "ServiceAccount" },
  { group: "", version: "v1", kind: "Namespace" },
  { group: "", version: "v1", kind: "Node" },
  { group: "", version: "v1", kind: "PersistentVolumeClaim" },
  { group: "apps", version: "v1", kind: "Deployment" },
  { group: "apps", version: "v1", kind: "StatefulSet" },
  { group: "apps", version: "v1", kind: "DaemonSet" },
  { group: "apps", version: "v1", kind: "ReplicaSet" },
  { group: "batch", version: "v1", kind: "Job" },
  { group: "batch", version: "v1", kind: "CronJob" },
  { group: "events.k8s.io", version: "v1", kind: "Event" },
  { group: "coordination.k8s.io", version: "v1", kind: "Lease" },
  { group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition" },
  { group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingWebhookConfiguration" },
  { group: "admissionregistration.k8s.io", version: "v1", kind: "MutatingWebhookConfiguration" },
];

/** Schemas generated besides those the kinds use: `metav1.Condition` for status conditions. */
export const CORE_EXTRA_SCHEMAS: readonly string[] = ["io.k8s.apimachinery.pkg.apis.meta.v1.Condition"];
