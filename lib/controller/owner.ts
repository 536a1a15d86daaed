import type { KubeObject, OwnerReference, ResourceRef } from "../client/types.ts";
import type { Request } from "./types.ts";

/** The ownerReference with `controller: true`, if any (there is at most one). */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((o) => o.controller === true);
}

/** The API group of an `apiVersion` ("apps/v1" -> "apps", "v1" -> ""). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/**
 * The request for the controlling owner of `obj` when that owner is of kind `owner` (group and kind
 * compared; the version is ignored because owners may be written with any served version).
 * Owners live in the object's namespace, or are cluster-scoped.
 */
export function requestForController(obj: KubeObject, owner: ResourceRef): Request | undefined {
  const ref = controllerOf(obj);
  if (!ref || ref.kind !== owner.kind || groupOf(ref.apiVersion) !== owner.group) return undefined;
  const namespace = obj.metadata.namespace;
  return owner.namespaced && namespace ? { namespace, name: ref.name } : { name: ref.name };
}

/** The request for an object itself. */
export function requestFor(obj: KubeObject): Request {
  const name = obj.metadata.name ?? "";
  const namespace = obj.metadata.namespace;
  return namespace ? { namespace, name } : { name };
}
