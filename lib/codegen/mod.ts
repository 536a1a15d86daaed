/**
 * Type generators. `generateResourceModules` turns kube-apiserver's OpenAPI v3 documents into the typed
 * kinds of lib/resources (`deno task gen:resources`); `generateCrdTypes` turns a CustomResourceDefinition's
 * schema into types and a typed `ResourceRef` for your own custom resources
 * (`lib/codegen/generate_crd_types.ts CRD.yaml OUT.ts`, see its header).
 *
 * The generated text's exact shape (names of nested types, comments) may change between minor
 * releases; regenerate after upgrading.
 * @module
 */
export { type CrdTypesOptions, generateCrdTypes } from "./crd_types.ts";
export {
  constantName,
  generateResourceModules,
  type GenerateResourceModulesOptions,
} from "./resource_modules.ts";
export type { GroupVersionKind, JsonSchema, OpenApiDocument } from "./schema.ts";
export { CORE_EXTRA_SCHEMAS, CORE_KINDS } from "./core_kinds.ts";
