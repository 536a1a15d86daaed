import type { KubeObject, ResourceRef } from "../client/types.ts";

/** API group of the sample-controller's custom resource, unchanged from upstream. */
export const FOO_GROUP = "samplecontroller.k8s.io";
/** `apiVersion` of a Foo. */
export const FOO_API_VERSION = "samplecontroller.k8s.io/v1alpha1";
/** Field manager of every write this controller makes (server-side apply of Deployments and Foo status). */
export const FIELD_MANAGER = "kubeloop-sample-controller";

/** The Foo custom resource (`samplecontroller.k8s.io/v1alpha1`, namespaced). */
export const FOOS: ResourceRef = Object.freeze({
  group: FOO_GROUP,
  version: "v1alpha1",
  plural: "foos",
  kind: "Foo",
  namespaced: true,
});

/** What the user asks for: a Deployment of that name with that many replicas. */
export interface FooSpec {
  /** Name of the Deployment to manage, in the Foo's namespace. Empty is invalid (reported, not retried). */
  deploymentName?: string;
  /** Omitted means "leave the Deployment's replicas alone" (upstream's behaviour; the API server defaults 1). */
  replicas?: number;
}

/** A `metav1.Condition`. */
export interface Condition {
  /** Condition type; this controller writes "Ready". */
  type: string;
  /** Whether the condition holds. */
  status: "True" | "False" | "Unknown";
  /** The Foo generation the condition was computed for. */
  observedGeneration?: number;
  /** When `status` last changed (RFC 3339). */
  lastTransitionTime?: string;
  /** CamelCase machine-readable cause. */
  reason?: string;
  /** Human-readable detail. */
  message?: string;
}

/** What the controller reports. `availableReplicas` is upstream's; the rest is ours. */
export interface FooStatus {
  /** Mirrors the Deployment's `status.availableReplicas` (upstream's only status field). */
  availableReplicas?: number;
  /** The Foo generation the status describes. */
  observedGeneration?: number;
  /** Conditions; this controller owns `Ready`. */
  conditions?: Condition[];
}

/** A Foo object. */
export interface Foo extends KubeObject {
  /** Desired state. */
  spec?: FooSpec;
  /** Observed state, written by the controller. */
  status?: FooStatus;
}

/** The parts of an `apps/v1` Deployment this controller writes or reads. */
export interface Deployment extends KubeObject {
  /** Desired state (the fields the controller sets or compares). */
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> };
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: { containers?: { name: string; image?: string; [field: string]: unknown }[] };
    };
    [field: string]: unknown;
  };
  /** Observed state, written by the deployment controller. */
  status?: {
    availableReplicas?: number;
    replicas?: number;
    readyReplicas?: number;
    [field: string]: unknown;
  };
}
