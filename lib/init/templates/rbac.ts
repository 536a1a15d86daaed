import type { Project } from "../project.ts";

/** manifests/rbac.yaml: exactly the verbs the generated controller sends, and no more. */
export function rbacYaml(p: Project): string {
  const labels = `  labels:
    app.kubernetes.io/name: ${p.name}`;
  const subject = `subjects:
  - kind: ServiceAccount
    name: ${p.name}
    namespace: ${p.namespace}`;
  // A namespaced kind's ConfigMaps live beside it, anywhere; a cluster-scoped kind's in our namespace only.
  const configMapRule = `  - apiGroups: [""]
    resources: ["configmaps"]
    verbs: ["list", "watch", "create", "patch"]`;
  const configMapRole = p.namespaced ? "" : `---
# The ConfigMaps of cluster-scoped ${p.kind}s live in the controller's own namespace, and so does
# the access to them.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ${p.name}-configmaps
  namespace: ${p.namespace}
${labels}
rules:
${configMapRule}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ${p.name}-configmaps
  namespace: ${p.namespace}
${labels}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ${p.name}-configmaps
${subject}
`;
  return `# Least privilege: every verb below is one the controller sends; no wildcards, no secrets, no delete.
# When the controller starts to read or write another kind, add exactly those verbs here.
# - ${p.plural}: list and watch for the informer; patch to add and remove the finalizer (a merge patch),
#   get to re-read a ${p.kind} when that patch meets a conflict.
# - ${p.plural}/status: patch, for the server-side apply of the status.
# - ${p.plural}/finalizers: update, which the OwnerReferencesPermissionEnforcement admission plugin (on
#   in some distributions) demands before an object may name a ${p.kind} in a blocking ownerReference.
# - configmaps: list and watch for the informer (only those labelled as ours are cached); server-side
#   apply is a patch, and applying a ConfigMap that does not exist yet also needs create.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${p.name}
${labels}
rules:
  - apiGroups: ["${p.group}"]
    resources: ["${p.plural}"]
    verbs: ["list", "watch", "get", "patch"]
  - apiGroups: ["${p.group}"]
    resources: ["${p.plural}/status"]
    verbs: ["patch"]
  - apiGroups: ["${p.group}"]
    resources: ["${p.plural}/finalizers"]
    verbs: ["update"]
${p.namespaced ? `${configMapRule}\n` : ""}---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ${p.name}
${labels}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ${p.name}
${subject}
---
# Leader election: one Lease in the controller's own namespace. get and update are limited to that Lease by
# name; create cannot be (RBAC does not know the name of an object being created), so it is limited by
# being namespaced instead.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ${p.name}-leader-election
  namespace: ${p.namespace}
${labels}
rules:
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["create"]
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    resourceNames: ["${p.name}"]
    verbs: ["get", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ${p.name}-leader-election
  namespace: ${p.namespace}
${labels}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ${p.name}-leader-election
${subject}
${configMapRole}`;
}
