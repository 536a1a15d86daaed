import type { KubeObject, OwnerReference } from "../client/types.ts";
import { FOO_GROUP } from "./types.ts";

/** The ownerReference marked `controller: true`, if any. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

/** True when `obj` is controlled by `owner`: upstream's `IsControlledBy`, a UID match on the controller ref. */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const uid = owner.metadata.uid;
  return uid !== undefined && controllerOf(obj)?.uid === uid;
}

/**
 * The queue key (`namespace/name`) of the Foo that controls `obj`, or undefined when its controller is not a
 * Foo. Unlike upstream, which checks only the kind, the API group is checked too, so another group's `Foo`
 * kind does not trigger reconciles.
 */
export function ownerFooKey(obj: KubeObject): string | undefined {
  const ref = controllerOf(obj);
  if (!ref || ref.kind !== "Foo") return undefined;
  const group = ref.apiVersion.includes("/") ? ref.apiVersion.slice(0, ref.apiVersion.indexOf("/")) : "";
  if (group !== FOO_GROUP) return undefined;
  const namespace = obj.metadata.namespace;
  return namespace ? `${namespace}/${ref.name}` : undefined;
}
