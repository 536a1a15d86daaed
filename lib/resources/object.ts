/**
 * Identifies a kind of resource on the API server. `T` is the type of its objects: the generated
 * constants (`CONFIG_MAPS`, `DEPLOYMENTS`, …) carry it, so `client.get(CONFIG_MAPS, name)` is a
 * `Promise<ConfigMap>` and `informer(DEPLOYMENTS)` an `Informer<Deployment>` without a cast. A plain
 * `ResourceRef` is `ResourceRef<KubeObject>`.
 */
export interface ResourceRef<T extends KubeObject = KubeObject> {
  /** API group; "" for the core group. */
  readonly group: string;
  /** API version within the group, e.g. "v1". */
  readonly version: string;
  /** Plural resource name used in paths, e.g. "deployments". */
  readonly plural: string;
  /** Kind of the objects, e.g. "Deployment". */
  readonly kind: string;
  /** Whether objects live in namespaces. */
  readonly namespaced: boolean;
  /**
   * Type-level only, never set at run time: the type of this resource's objects, from which generic
   * calls infer their result type.
   */
  readonly objectType?: T;
}

/** A group, version and kind; the group is "" for the core API. */
export interface GroupVersionKind {
  /** API group; "" for core. */
  readonly group: string;
  /** API version. */
  readonly version: string;
  /** Kind. */
  readonly kind: string;
}

/** An owner reference as stored in `metadata.ownerReferences`. */
export interface OwnerReference {
  /** apiVersion of the owner. */
  apiVersion: string;
  /** Kind of the owner. */
  kind: string;
  /** Name of the owner (same namespace as the dependent). */
  name: string;
  /** UID of the owner; a recreated owner of the same name does not match. */
  uid: string;
  /** True for the one managing controller. */
  controller?: boolean;
  /** Foreground deletion of the owner waits for this dependent. */
  blockOwnerDeletion?: boolean;
}

/** The metadata every Kubernetes object carries (the fields this project reads). */
export interface ObjectMeta {
  /** Unique within the namespace (or cluster, for cluster-scoped kinds). */
  name?: string;
  /** Prefix the server completes into a unique name on create. */
  generateName?: string;
  /** Namespace of namespaced objects. */
  namespace?: string;
  /** Server-assigned identity, unique over time. */
  uid?: string;
  /** Opaque version for optimistic concurrency and watches; compare only for equality. */
  resourceVersion?: string;
  /** Incremented by the server when the spec changes. */
  generation?: number;
  /** RFC 3339 time of creation. */
  creationTimestamp?: string;
  /** Set when deletion was requested and finalizers still hold the object. */
  deletionTimestamp?: string;
  /** Identifying key/value pairs, used by selectors. */
  labels?: Record<string, string>;
  /** Non-identifying key/value pairs. */
  annotations?: Record<string, string>;
  /** Objects this one depends on (garbage collection, controller ownership). */
  ownerReferences?: OwnerReference[];
  /** Keys that must be removed before the object is deleted. */
  finalizers?: string[];
  /** Server-side apply field ownership; stripped from caches by default. */
  managedFields?: unknown[];
  /** Any other metadata field. */
  [field: string]: unknown;
}

/**
 * Any Kubernetes object. Specific shapes extend it (the generated kinds, your CRDs' generated types), and
 * it has no catch-all field: a typo such as `{ dta: … }` in a Secret, or `sepc:` in a custom resource, is a
 * compile error. For kinds without types, use {@linkcode UnstructuredObject}.
 */
export interface KubeObject {
  /** e.g. "apps/v1". */
  apiVersion?: string;
  /** e.g. "Deployment". */
  kind?: string;
  /** Standard object metadata. */
  metadata: ObjectMeta;
}

/**
 * An object of a kind without generated types: any field beyond `metadata` is `unknown` until checked.
 * Type a `ResourceRef<UnstructuredObject>` to read such kinds without a cast.
 */
export interface UnstructuredObject extends KubeObject {
  /** spec, status, data, ... */
  [field: string]: unknown;
}

/**
 * `metav1.PartialObjectMetadata`: an object of any kind reduced to its identity and metadata, as the
 * server sends it for `metadataOnly` lists and watches.
 */
export type PartialObjectMetadata = {
  /** "meta.k8s.io/v1" as sent by the server. */
  apiVersion?: string;
  /** "PartialObjectMetadata" as sent by the server. */
  kind?: string;
  /** The object's metadata. */
  metadata: ObjectMeta;
};

/** `metav1.ListMeta`. */
export interface ListMeta {
  /** The version the list is consistent with; start a watch from here. */
  resourceVersion?: string;
  /** Token for the next page; empty on the last page. */
  continue?: string;
  /** Estimated number of items after this page. */
  remainingItemCount?: number;
  /** Set on a sharded list (kube-apiserver v1.36+): the shard selector the server applied. */
  shardInfo?: { selector: string };
}

/** One page of a list. */
export interface ObjectList<T extends KubeObject = KubeObject> {
  /** e.g. "v1". */
  apiVersion?: string;
  /** e.g. "ConfigMapList". */
  kind?: string;
  /** Version and paging state. */
  metadata: ListMeta;
  /** The objects of this page. */
  items: T[];
}

/** `metav1.Status`, as returned by the server with error responses and watch ERROR events. */
export interface Status {
  /** "v1". */
  apiVersion?: string;
  /** Always "Status". */
  kind?: "Status";
  /** Outcome. */
  status?: "Success" | "Failure";
  /** Human-readable description. */
  message?: string;
  /** Machine-readable reason, e.g. "NotFound", "Expired". */
  reason?: string;
  /** HTTP status code. */
  code?: number;
  /** Extra data about the reason. */
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
  /** List metadata (unused by most errors). */
  metadata?: ListMeta;
}
