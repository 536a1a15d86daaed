/**
 * The `apiextensions.k8s.io/v1` ConversionReview kube-apiserver sends to a CRD's conversion webhook. Only v1:
 * kubeloop's CRD conversion settings offer `conversionReviewVersions: ["v1"]`.
 * @module
 */
import type { KubeObject, Status } from "../resources/object.ts";

/** The `apiVersion` of every conversion review this package reads and writes. */
export const CONVERSION_REVIEW_API_VERSION = "apiextensions.k8s.io/v1";

/** Objects to convert, all to one version. */
export interface ConversionRequest {
  /** Identifies this call; the response repeats it. */
  readonly uid: string;
  /** The `apiVersion` every converted object must have, e.g. "samplecontroller.k8s.io/v1beta1". */
  readonly desiredAPIVersion: string;
  /** The objects, each in its own version (a list may mix versions). */
  readonly objects: readonly KubeObject[];
}

/** The converted objects, in the order of the request, or why not. */
export interface ConversionResponse {
  /** The request's `uid`. */
  uid: string;
  /** One per requested object, same order. Empty on failure. */
  convertedObjects: KubeObject[];
  /** `{ status: "Success" }`, or `{ status: "Failure", message }` (the API server shows the message). */
  result: Status;
}

/** The envelope both ways: the API server fills `request`, the webhook answers with `response`. */
export interface ConversionReview {
  /** Always "apiextensions.k8s.io/v1". */
  apiVersion: typeof CONVERSION_REVIEW_API_VERSION;
  /** Always "ConversionReview". */
  kind: "ConversionReview";
  /** Set by the API server. */
  request?: ConversionRequest;
  /** Set by the webhook. */
  response?: ConversionResponse;
}
