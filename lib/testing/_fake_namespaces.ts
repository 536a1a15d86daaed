/**
 * Namespaces as kube-apiserver and the namespace controller treat them, for FakeApi: the server puts the
 * controller's finalizer into every new Namespace's `spec.finalizers`, so a deleted Namespace stays,
 * Terminating, until the controller has deleted its content and removed that finalizer.
 * @module
 */
import type { KubeObject, ResourceRef } from "../resources/object.ts";

/** The namespace controller's finalizer, in `spec.finalizers` of every new Namespace. */
export const NAMESPACE_FINALIZER = "kubernetes";

interface NamespaceFields {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

/** True for core/v1 namespaces. */
export function isNamespaces(ref: ResourceRef): boolean {
  return ref.group === "" && ref.plural === "namespaces";
}

/** A new Namespace as the server stores it: `spec.finalizers` ["kubernetes"] and phase Active unless given. */
export function withNamespaceDefaults(obj: KubeObject): KubeObject {
  const ns = obj as KubeObject & NamespaceFields;
  return {
    ...ns,
    spec: { ...ns.spec, finalizers: ns.spec?.finalizers ?? [NAMESPACE_FINALIZER] },
    status: { ...ns.status, phase: ns.status?.phase ?? "Active" },
  } as KubeObject;
}

/** True while something holds `obj`'s deletion: metadata finalizers, or a Namespace's spec finalizers. */
export function deletionHeld(ref: ResourceRef, obj: KubeObject): boolean {
  if ((obj.metadata.finalizers?.length ?? 0) > 0) return true;
  return isNamespaces(ref) && ((obj as KubeObject & NamespaceFields).spec?.finalizers?.length ?? 0) > 0;
}

/** A copy of `ns` in phase Terminating (its delete also sets the deletionTimestamp, but no grace period). */
export function terminatingNamespace(ns: KubeObject): KubeObject {
  const marked = structuredClone(ns) as KubeObject & NamespaceFields;
  marked.status = { ...marked.status, phase: "Terminating" };
  return marked;
}

/** `ns` with the namespace controller's finalizer removed from its spec (its content is gone). */
export function finalizedNamespace(ns: KubeObject): KubeObject {
  const done = structuredClone(ns) as KubeObject & NamespaceFields;
  done.spec = {
    ...done.spec,
    finalizers: (done.spec?.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER),
  };
  return done;
}
