import type { ResourceRef } from "../resources/object.ts";
import type { Lease, LeaseSpec } from "../resources/coordination_v1.ts";

/** `coordination.k8s.io/v1` Lease types, generated from the API server's schema. */
export type { Lease, LeaseSpec };

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
  signal?: AbortSignal | undefined;
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
