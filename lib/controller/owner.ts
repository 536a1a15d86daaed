import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject, OwnerReference, ResourceRef } from "../resources/object.ts";
import { apiVersionOf } from "../resources/api_version.ts";
import type { ReconcileRequest } from "./types.ts";

/** The ownerReference with `controller: true`, if any (there is at most one). */
export function controllerOf(obj: DeepReadonly<KubeObject>): DeepReadonly<OwnerReference> | undefined {
  return obj.metadata.ownerReferences?.find((o) => o.controller === true);
}

/** The API group of an `apiVersion` ("apps/v1" -> "apps", "v1" -> ""). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/**
 * The controller ownerReference that makes `owner` (a `ref` object) the managing controller of a dependent:
 * `controller: true` and `blockOwnerDeletion: true`, so the garbage collector deletes the dependent with
 * its owner (and foreground deletion waits for it). apiVersion and kind come from `ref`, because objects
 * read from a list or an informer often lack them. Throws a TypeError when the owner has no name or uid
 * (an object not read back from the server): a reference without a uid would match nothing, or anything.
 */
export function controllerReference(owner: DeepReadonly<KubeObject>, ref: ResourceRef): OwnerReference {
  const { name, uid } = owner.metadata;
  if (!name || !uid) {
    throw new TypeError(
      `Cannot reference ${ref.kind} "${name ?? ""}" as an owner: it has no metadata.${name ? "uid" : "name"}`,
    );
  }
  return {
    apiVersion: apiVersionOf(ref),
    kind: ref.kind,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Thrown by {@linkcode setControllerReference} when another owner already controls the object. */
export class AlreadyOwnedError extends Error {
  /** The controller reference already in place. */
  readonly existing: DeepReadonly<OwnerReference>;
  /** `existing` is the other controller's reference. */
  constructor(message: string, existing: DeepReadonly<OwnerReference>) {
    super(message);
    this.name = "AlreadyOwnedError";
    this.existing = existing;
  }
}

/**
 * A copy of `obj` whose controller ownerReference names `owner` (see {@linkcode controllerReference}); other
 * ownerReferences are kept, and a reference to the same owner (by uid) is replaced. `obj` is not modified.
 * Throws {@linkcode AlreadyOwnedError} when a different object is already its controller: at most one
 * controller per object, and taking over silently would fight the other one. Throws a TypeError when a
 * namespaced owner and `obj` name different namespaces: the garbage collector looks an owner up in its
 * dependent's namespace, finds nothing and deletes the dependent. (A cluster-scoped owner may own objects
 * in any namespace and cluster-scoped ones; a cluster-scoped dependent cannot have a namespaced owner, which
 * this cannot tell when `obj` names no namespace.)
 *
 * @example Make a Deployment the controller of a ConfigMap it manages
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConfigMap, DEPLOYMENTS, isControlledBy, setControllerReference } from "@kubeloop/kubeloop";
 *
 * // The owner as read from the server: it has a uid. DEPLOYMENTS supplies apiVersion and kind.
 * const owner = { metadata: { name: "web", namespace: "shop", uid: "7f0c5a42-1d52" } };
 * const config: ConfigMap = { metadata: { name: "web-config", namespace: "shop" }, data: { mode: "fast" } };
 * const owned = setControllerReference(config, owner, DEPLOYMENTS); // a copy; `config` is unchanged
 * assert.deepEqual(owned.metadata.ownerReferences, [{
 *   apiVersion: "apps/v1",
 *   kind: "Deployment",
 *   name: "web",
 *   uid: owner.metadata.uid,
 *   controller: true,
 *   blockOwnerDeletion: true,
 * }]);
 * assert.ok(isControlledBy(owned, owner));
 * ```
 */
export function setControllerReference<T extends KubeObject>(
  obj: T,
  owner: DeepReadonly<KubeObject>,
  ref: ResourceRef,
): T {
  const reference = controllerReference(owner, ref);
  const [ownerNs, objNs] = [owner.metadata.namespace, obj.metadata.namespace];
  if (ref.namespaced && ownerNs && objNs && ownerNs !== objNs) {
    throw new TypeError(
      `${ref.kind} "${reference.name}" in namespace "${ownerNs}" cannot own an object in namespace "${objNs}": ` +
        "owners are looked up in their dependent's namespace, and the garbage collector would delete it",
    );
  }
  const existing = controllerOf(obj);
  if (existing && existing.uid !== reference.uid) {
    throw new AlreadyOwnedError(
      `${obj.kind ?? "Object"} "${obj.metadata.name ?? ""}" is already controlled by ${existing.kind} ` +
        `"${existing.name}"`,
      existing,
    );
  }
  const others = (obj.metadata.ownerReferences ?? []).filter((o) => o.uid !== reference.uid);
  return { ...obj, metadata: { ...obj.metadata, ownerReferences: [...others, reference] } };
}

/**
 * True when `owner` is the controller of `obj`: a uid match on the controller ownerReference. False when
 * the owner has no uid (never `undefined === undefined`).
 *
 * @example Ownership is by uid: a recreated owner of the same name is another object
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEPLOYMENTS, isControlledBy, setControllerReference } from "@kubeloop/kubeloop";
 *
 * const owner = { metadata: { name: "web", namespace: "shop", uid: "uid-1" } };
 * const recreated = { metadata: { name: "web", namespace: "shop", uid: "uid-2" } };
 * const child = setControllerReference(
 *   { metadata: { name: "web-config", namespace: "shop" } },
 *   owner,
 *   DEPLOYMENTS,
 * );
 * assert.equal(isControlledBy(child, owner), true);
 * assert.equal(isControlledBy(child, recreated), false);
 * ```
 */
export function isControlledBy(obj: DeepReadonly<KubeObject>, owner: DeepReadonly<KubeObject>): boolean {
  const uid = owner.metadata.uid;
  return uid !== undefined && uid !== "" && controllerOf(obj)?.uid === uid;
}

/**
 * The request for the controlling owner of `obj` when that owner is of kind `owner` (group and kind
 * compared; the version is ignored because owners may be written with any served version).
 * Owners live in the object's namespace, or are cluster-scoped.
 */
export function requestForController(
  obj: DeepReadonly<KubeObject>,
  owner: ResourceRef,
): ReconcileRequest | undefined {
  const ref = controllerOf(obj);
  if (!ref || ref.kind !== owner.kind || groupOf(ref.apiVersion) !== owner.group) return undefined;
  const namespace = obj.metadata.namespace;
  return owner.namespaced && namespace ? { namespace, name: ref.name } : { name: ref.name };
}

/** The request for an object itself. */
export function requestFor(obj: DeepReadonly<KubeObject>): ReconcileRequest {
  const name = obj.metadata.name ?? "";
  const namespace = obj.metadata.namespace;
  return namespace ? { namespace, name } : { name };
}
