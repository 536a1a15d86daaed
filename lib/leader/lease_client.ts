import type { KubeObject, ObjectMeta, ResourceRef } from "../client/types.ts";

/** The fields of `LeaseSpec` leader election reads and writes. Times are MicroTime strings. */
export interface LeaseSpec {
  /** Identity of the current holder; empty when released. */
  holderIdentity?: string;
  /** How long others wait before taking over. */
  leaseDurationSeconds?: number;
  /** MicroTime the holder acquired it. */
  acquireTime?: string;
  /** MicroTime of the last renewal. */
  renewTime?: string;
  /** How many times the holder changed. */
  leaseTransitions?: number;
  /** Fields this project does not read are kept as they are. */
  [field: string]: unknown;
}

/** A `coordination.k8s.io/v1` Lease. */
export interface Lease extends KubeObject {
  /** Object metadata. */
  metadata: ObjectMeta;
  /** The Lease spec. */
  spec?: LeaseSpec;
}

/** Per-request options the elector passes to the client. */
export interface LeaseRequestOptions {
  /**
   * Namespace; omitted for cluster-scoped objects.
   * @default {cluster-scoped}
   */
  namespace?: string;
  /**
   * Aborts the request.
   * @default {never aborted}
   */
  signal?: AbortSignal;
}

/**
 * What leader election needs from the API client. `KubeClient` satisfies it; tests use an in-memory fake.
 * Failures must be thrown as `ApiError` so NotFound / Conflict / AlreadyExists can be told apart.
 */
export interface LeaseClient {
  /** Reads a Lease; throws an ApiError with reason NotFound when it does not exist. */
  get(ref: ResourceRef, name: string, options?: LeaseRequestOptions): Promise<Lease>;
  /** Creates a Lease; throws AlreadyExists when another elector was faster. */
  create(ref: ResourceRef, obj: Lease, options?: LeaseRequestOptions): Promise<Lease>;
  /** Replaces a Lease, honouring `metadata.resourceVersion` (Conflict when stale). */
  replace(ref: ResourceRef, obj: Lease, options?: LeaseRequestOptions): Promise<Lease>;
}
