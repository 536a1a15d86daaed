/**
 * The Kubernetes REST client: typed get/list/create/replace/patch/delete/watch for any resource,
 * `ApiError` carrying the server's Status, and the typed resource refs (from lib/resources).
 * @module
 */
export { ApiError, reasonForCode } from "./api_error.ts";
export { KubeClient } from "./kube_client.ts";
export type {
  DeleteOptions,
  KubeClientOptions,
  ListPage,
  ObjectOptions,
  PatchOptions,
  PatchType,
  WriteFence,
  WriteOptions,
} from "./client_options.ts";
export { objectKey, type PathParts, resourcePath, splitKey } from "./paths.ts";
export { type DeepMutable, type DeepReadonly, mutableCopy } from "../resources/deep_readonly.ts";
export { validateResourceRef } from "./paths.ts";
export { noopRequestMetrics, type RequestMetrics, type RequestObservation } from "./request_metrics.ts";
export type { ResourceClient } from "./resource_client.ts";
export { TokenBucket } from "./token_bucket.ts";
export {
  isWriteSource,
  type WriteEnd,
  type WriteListener,
  WriteListeners,
  type WriteSource,
  type WriteStart,
  type WriteVerb,
} from "./write_listener.ts";
export type * from "./types.ts";
