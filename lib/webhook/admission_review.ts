/**
 * The `admission.k8s.io/v1` AdmissionReview as kube-apiserver sends it to a webhook and reads back. Only v1:
 * the configurations kubeloop generates offer `admissionReviewVersions: ["v1"]`, so no API server sends
 * v1beta1 to them, and the server answers any other version with 400.
 * @module
 */
import type { GroupVersionKind, KubeObject, Status } from "../resources/object.ts";

export type { GroupVersionKind };

/** The `apiVersion` of every review this package reads and writes. */
export const ADMISSION_REVIEW_API_VERSION = "admission.k8s.io/v1";

/** What a request does to the object. */
export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** A group, version and resource (plural), e.g. `{ group: "apps", version: "v1", resource: "deployments" }`. */
export interface GroupVersionResource {
  /** "" for the core group. */
  readonly group: string;
  /** e.g. "v1". */
  readonly version: string;
  /** The plural resource name. */
  readonly resource: string;
}

/** Who sent the request, as the API server authenticated them. */
export interface UserInfo {
  /** e.g. "system:serviceaccount:ns:name" or "kubernetes-admin". */
  readonly username?: string;
  /** A unique value that identifies this user across time. */
  readonly uid?: string;
  /** The groups the user is in, e.g. ["system:masters", "system:authenticated"]. */
  readonly groups?: readonly string[];
  /** Other information the authenticator provided. */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/**
 * One admission request. `T` is the type of `object` and `oldObject`: the webhook's resource (e.g. `Foo` for
 * a webhook declared on `FOOS`). `object` is absent for DELETE and `oldObject` for CREATE and CONNECT.
 */
export interface AdmissionRequest<T extends KubeObject = KubeObject> {
  /** Identifies this call; the response repeats it. */
  readonly uid: string;
  /** The kind of `object` as the webhook receives it (after conversion to the version it registered). */
  readonly kind: GroupVersionKind;
  /** The resource being requested, in the version the webhook registered. */
  readonly resource: GroupVersionResource;
  /** e.g. "status" or "scale"; absent for the main resource. */
  readonly subResource?: string;
  /** The kind the client sent, when it differs (matchPolicy Equivalent converted it). */
  readonly requestKind?: GroupVersionKind;
  /** The resource the client requested, when it differs. */
  readonly requestResource?: GroupVersionResource;
  /** The subresource the client requested, when it differs. */
  readonly requestSubResource?: string;
  /** The object's name; absent on CREATE with `generateName` until the server picks one. */
  readonly name?: string;
  /** The object's namespace; absent for cluster-scoped objects. */
  readonly namespace?: string;
  /** What the request does. */
  readonly operation: Operation;
  /** Who sent it. */
  readonly userInfo: UserInfo;
  /** The object as it would be stored (CREATE, UPDATE, CONNECT). */
  readonly object?: T;
  /** The object as it is stored now (UPDATE, DELETE). */
  readonly oldObject?: T;
  /** True when nothing will be persisted (`kubectl apply --dry-run=server`). */
  readonly dryRun?: boolean;
  /** The CreateOptions, UpdateOptions or DeleteOptions of the request. */
  readonly options?: Readonly<Record<string, unknown>>;
}

/** The answer to one admission request. */
export interface AdmissionResponse {
  /** The request's `uid`. */
  uid: string;
  /** Whether the request may proceed. */
  allowed: boolean;
  /** Why not (`message`, `code`, `reason`), when `allowed` is false. */
  status?: Status;
  /** Base64 of an RFC 6902 JSON Patch to apply to the object (mutating webhooks only). */
  patch?: string;
  /** Always "JSONPatch" when `patch` is set. */
  patchType?: "JSONPatch";
  /** Added to the audit event of the request. */
  auditAnnotations?: Record<string, string>;
  /** Shown to the client (kubectl prints them as "Warning: …"). */
  warnings?: string[];
}

/** The envelope both ways: the API server fills `request`, the webhook answers with `response`. */
export interface AdmissionReview<T extends KubeObject = KubeObject> {
  /** Always "admission.k8s.io/v1". */
  apiVersion: typeof ADMISSION_REVIEW_API_VERSION;
  /** Always "AdmissionReview". */
  kind: "AdmissionReview";
  /** Set by the API server. */
  request?: AdmissionRequest<T>;
  /** Set by the webhook. */
  response?: AdmissionResponse;
}
