import type { KubeObject } from "../client/types.ts";
import { ownerFooKey } from "./ownership.ts";

/**
 * Whether an update of a Foo needs a reconcile: only when `metadata.generation` moved (a spec change) or the
 * object was replaced (new UID). Our own status writes bump only `resourceVersion`, so they do not trigger a
 * reconcile of the same Foo — upstream re-syncs after each of its own status updates.
 */
export function fooUpdateNeedsSync(oldFoo: KubeObject, newFoo: KubeObject): boolean {
  return oldFoo.metadata.generation !== newFoo.metadata.generation ||
    oldFoo.metadata.uid !== newFoo.metadata.uid;
}

/**
 * The Foo key to sync after a Deployment event, or undefined. Updates with an unchanged `resourceVersion`
 * (informer resyncs) are skipped, as upstream does; on an update that moved the Deployment from one Foo to
 * another, both are synced.
 */
export function fooKeysForDeployment(oldDep: KubeObject | undefined, newDep: KubeObject): string[] {
  if (oldDep && oldDep.metadata.resourceVersion === newDep.metadata.resourceVersion) return [];
  const keys = new Set<string>();
  for (const dep of oldDep ? [oldDep, newDep] : [newDep]) {
    const key = ownerFooKey(dep);
    if (key) keys.add(key);
  }
  return [...keys];
}
