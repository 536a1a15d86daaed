import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject, ResourceRef } from "../resources/object.ts";
import {
  type OwnsSource,
  type Predicate,
  resourceVersionChanged,
  type TriggerEvent,
} from "../controller/mod.ts";
import { DEPLOYMENTS } from "../resources/refs.ts";
import { type Foo, FOOS } from "./types.ts";

/**
 * Whether an update of a Foo needs a reconcile: only when `metadata.generation` moved (a spec change) or the
 * object was replaced (new UID). Our own status writes bump only `resourceVersion`, so they do not trigger a
 * reconcile of the same Foo — upstream re-syncs after each of its own status updates.
 */
export function fooUpdateNeedsSync(
  oldFoo: DeepReadonly<KubeObject>,
  newFoo: DeepReadonly<KubeObject>,
): boolean {
  return oldFoo.metadata.generation !== newFoo.metadata.generation ||
    oldFoo.metadata.uid !== newFoo.metadata.uid;
}

/** The trigger part of a Foo controller's options: spread it into `Manager.controller` or `controller`. */
export interface FooTriggers {
  /** Foos, the primary kind. */
  for: ResourceRef;
  /** Filters Foo events. */
  predicates: Predicate<Foo>[];
  /** Deployments, enqueuing their controlling Foo. */
  owns: OwnsSource[];
}

/**
 * What triggers a Foo reconcile: Foo adds, deletes and spec changes
 * (see {@linkcode fooUpdateNeedsSync}); and any change of a Deployment whose controller ownerReference is a
 * `samplecontroller.k8s.io` Foo (group and kind checked, unlike upstream, which checks only the kind). Periodic
 * resyncs of a Deployment (same `resourceVersion`) are skipped, as upstream does; a Deployment moved from one
 * Foo to another syncs both. Kept apart from the rest of the wiring so tests can drive it with fake informers.
 */
export function fooTriggers(): FooTriggers {
  return {
    for: FOOS,
    predicates: [(e: TriggerEvent<Foo>) => e.type !== "update" || fooUpdateNeedsSync(e.oldObject, e.object)],
    owns: [{ ref: DEPLOYMENTS, predicates: [resourceVersionChanged] }],
  };
}
