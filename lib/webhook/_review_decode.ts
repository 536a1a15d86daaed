/**
 * Request bodies to typed reviews, or a 400 that says what is wrong without quoting the body.
 * @module
 */
import type { KubeObject } from "../resources/object.ts";
import { ADMISSION_REVIEW_API_VERSION, type AdmissionRequest, type Operation } from "./admission_review.ts";
import { CONVERSION_REVIEW_API_VERSION, type ConversionRequest } from "./conversion_review.ts";
import { HttpRequestError } from "./_http_head.ts";

type Json = Record<string, unknown>;

const UTF8 = new TextDecoder("utf-8", { fatal: true });
const OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

/** The request of an `admission.k8s.io/v1` AdmissionReview body; throws HttpRequestError(400) otherwise. */
export function decodeAdmissionReview(body: Uint8Array): AdmissionRequest {
  const request = envelope(body, ADMISSION_REVIEW_API_VERSION, "AdmissionReview");
  if (typeof request.uid !== "string" || request.uid === "") bad("request.uid is missing");
  if (!OPERATIONS.includes(request.operation as Operation)) {
    bad("request.operation is not CREATE, UPDATE, DELETE or CONNECT");
  }
  for (const field of ["kind", "resource"]) if (!isObject(request[field])) bad(`request.${field} is missing`);
  if (request.userInfo !== undefined && !isObject(request.userInfo)) bad("request.userInfo is not an object");
  for (const field of ["object", "oldObject"]) {
    if (request[field] !== undefined && request[field] !== null && !isObject(request[field])) {
      bad(`request.${field} is not an object`);
    }
  }
  if (request.dryRun !== undefined && typeof request.dryRun !== "boolean") {
    bad("request.dryRun is not a boolean");
  }
  // The API server sends null for an absent object; handlers see it absent.
  const { object, oldObject, ...rest } = request;
  return {
    ...rest,
    userInfo: (request.userInfo ?? {}) as AdmissionRequest["userInfo"],
    ...(isObject(object) ? { object: object as unknown as KubeObject } : {}),
    ...(isObject(oldObject) ? { oldObject: oldObject as unknown as KubeObject } : {}),
  } as AdmissionRequest;
}

/** The request of an `apiextensions.k8s.io/v1` ConversionReview body; throws HttpRequestError(400) otherwise. */
export function decodeConversionReview(body: Uint8Array): ConversionRequest {
  const request = envelope(body, CONVERSION_REVIEW_API_VERSION, "ConversionReview");
  if (typeof request.uid !== "string" || request.uid === "") bad("request.uid is missing");
  if (typeof request.desiredAPIVersion !== "string") bad("request.desiredAPIVersion is missing");
  if (!Array.isArray(request.objects)) bad("request.objects is not a list");
  for (const [i, object] of (request.objects as unknown[]).entries()) {
    if (!isObject(object) || typeof object.apiVersion !== "string" || !isObject(object.metadata)) {
      bad(`request.objects[${i}] is not an object with apiVersion and metadata`);
    }
  }
  return request as unknown as ConversionRequest;
}

/** The `request` of a review of `apiVersion` and `kind`. */
function envelope(body: Uint8Array, apiVersion: string, kind: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(UTF8.decode(body));
  } catch {
    bad(`the body is not JSON (expected an ${apiVersion} ${kind})`);
  }
  if (!isObject(value)) bad(`the body is not a JSON object (expected an ${apiVersion} ${kind})`);
  if (value.apiVersion !== apiVersion || value.kind !== kind) {
    bad(
      `expected an ${apiVersion} ${kind}, got apiVersion ${quote(value.apiVersion)} and kind ${
        quote(value.kind)
      }`,
    );
  }
  if (!isObject(value.request)) bad(`the ${kind} has no request`);
  return value.request;
}

function bad(message: string): never {
  throw new HttpRequestError(400, message);
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short, printable rendering of a field that should be a short string. */
function quote(value: unknown): string {
  if (typeof value !== "string") {
    return value === undefined ? "(none)" : `(a ${value === null ? "null" : typeof value})`;
  }
  return /^[\x20-\x7e]{0,64}$/.test(value) ? JSON.stringify(value) : "(an unprintable or long string)";
}
