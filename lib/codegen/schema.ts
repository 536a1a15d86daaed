/**
 * The subset of JSON Schema that Kubernetes uses: OpenAPI v3 component schemas served by
 * kube-apiserver at `/openapi/v3/...`, and the structural schemas of CustomResourceDefinitions.
 */
export interface JsonSchema {
  /** "object", "array", "string", "integer", "number" or "boolean". */
  readonly type?: string;
  /** e.g. "int32", "date-time", "byte", "int-or-string". */
  readonly format?: string;
  /** Human-readable documentation. */
  readonly description?: string;
  /** Object fields. */
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  /** Fields that must be present. */
  readonly required?: readonly string[];
  /** Map values (schema) or whether unknown keys are allowed. */
  readonly additionalProperties?: boolean | JsonSchema;
  /** Array elements. */
  readonly items?: JsonSchema;
  /** Allowed values. */
  readonly enum?: readonly unknown[];
  /** OpenAPI v3 wraps references in `allOf: [{ $ref }]` to attach a description or default. */
  readonly allOf?: readonly JsonSchema[];
  /** Alternatives (e.g. Quantity: string or number). */
  readonly oneOf?: readonly JsonSchema[];
  /** Alternatives. */
  readonly anyOf?: readonly JsonSchema[];
  /** A reference to `#/components/schemas/<name>`. */
  readonly $ref?: string;
  /** null is allowed as well. */
  readonly nullable?: boolean;
  /** An integer or a string (IntOrString). */
  readonly "x-kubernetes-int-or-string"?: boolean;
  /** Any JSON below this point is kept as is. */
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  /** A complete Kubernetes object (apiVersion, kind, metadata) is embedded here. */
  readonly "x-kubernetes-embedded-resource"?: boolean;
  /** The kinds a top-level schema describes. */
  readonly "x-kubernetes-group-version-kind"?: readonly GroupVersionKind[];
}

import type { GroupVersionKind } from "../resources/object.ts";

export type { GroupVersionKind };

/** One OpenAPI v3 document, as served at `/openapi/v3/apis/<group>/<version>` (the parts we read). */
export interface OpenApiDocument {
  /** Named schemas. */
  readonly components?: { readonly schemas?: Readonly<Record<string, JsonSchema>> };
  /** Operations by path; list operations name their kind. */
  readonly paths?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}
