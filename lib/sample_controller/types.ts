import type { Deployment } from "../resources/apps_v1.ts";
import { type Foo, FOOS, type FooSpec, type FooStatus, type FooStatusCondition } from "./foo.ts";

// Foo's types are generated from crds/ (`deno task gen:crds`); Deployment's from the API server's schema.
export { type Deployment, type Foo, FOOS, type FooSpec, type FooStatus, type FooStatusCondition };

/** API group of the sample-controller's custom resource, unchanged from upstream. */
export const FOO_GROUP = "samplecontroller.k8s.io";
/** `apiVersion` of a Foo. */
export const FOO_API_VERSION = "samplecontroller.k8s.io/v1alpha1";
/** Field manager of every write this controller makes (server-side apply of Deployments and Foo status). */
export const FIELD_MANAGER = "kubeloop-sample-controller";
