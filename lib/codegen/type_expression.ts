import type { JsonSchema } from "./schema.ts";
import { docComment, literal, propertyKey } from "./ts_text.ts";

/** How a nested object schema without a name of its own is written. */
export interface TypeContext {
  /** The TS name of a `$ref` target (also records the dependency). */
  refName(ref: string): string;
  /**
   * Names an inline object schema at `path` (e.g. ["spec", "template"]) and returns that name, or
   * undefined to write it inline as an object literal type.
   */
  nameInline?(schema: JsonSchema, path: readonly string[]): string | undefined;
  /** Facts to add to a field's doc (bounds, format, …), or undefined. */
  describe?(schema: JsonSchema): string | undefined;
}

/** The TypeScript type of `schema`. `path` is where it sits, for naming inline objects. */
export function typeExpression(
  schema: JsonSchema,
  ctx: TypeContext,
  path: readonly string[],
  indent = "",
): string {
  const t = baseType(schema, ctx, path, indent);
  return schema.nullable ? `${parenthesize(t)} | null` : t;
}

function baseType(schema: JsonSchema, ctx: TypeContext, path: readonly string[], indent: string): string {
  if (schema.$ref) return ctx.refName(schema.$ref);
  const allOf = schema.allOf ?? [];
  if (allOf.length === 1 && allOf[0]) return typeExpression(allOf[0], ctx, path, indent);
  if (schema["x-kubernetes-int-or-string"] || schema.format === "int-or-string") return "number | string";
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives && alternatives.length > 0 && !schema.type && !schema.properties) {
    return [...new Set(alternatives.map((a) => typeExpression(a, ctx, path, indent)))].join(" | ");
  }
  if (schema.enum && schema.enum.length > 0) return schema.enum.map(literal).join(" | ");
  switch (schema.type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "array": {
      const item = schema.items ? typeExpression(schema.items, ctx, [...path, "item"], indent) : "unknown";
      return `${parenthesize(item)}[]`;
    }
    case "object":
    case undefined:
      return objectType(schema, ctx, path, indent);
    default:
      return "unknown";
  }
}

function objectType(schema: JsonSchema, ctx: TypeContext, path: readonly string[], indent: string): string {
  const props = schema.properties ?? {};
  const hasProps = Object.keys(props).length > 0;
  if (!hasProps) {
    if (schema["x-kubernetes-embedded-resource"]) return "KubeObject";
    const extra = schema.additionalProperties;
    if (typeof extra === "object") {
      return `Record<string, ${typeExpression(extra, ctx, [...path, "value"], indent)}>`;
    }
    if (schema.type === "object" || schema["x-kubernetes-preserve-unknown-fields"]) {
      return "Record<string, unknown>";
    }
    return "unknown";
  }
  const named = ctx.nameInline?.(schema, path);
  if (named) return named;
  return `{\n${objectMembers(schema, ctx, path, `${indent}  `)}${indent}}`;
}

/** The member lines of an object schema (properties with docs), each at `indent`. */
export function objectMembers(
  schema: JsonSchema,
  ctx: TypeContext,
  path: readonly string[],
  indent: string,
  override: (name: string) => string | undefined = () => undefined,
): string {
  const required = new Set(schema.required ?? []);
  let out = "";
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const type = override(name) ?? typeExpression(prop, ctx, [...path, name], indent);
    const facts = ctx.describe?.(prop);
    const text = prop.description ?? prop.allOf?.[0]?.description;
    out += docComment(
      text ?? (facts ? `\`${name}\`: ${facts}.` : `The \`${name}\` field (not described by the schema).`),
      indent,
      text && facts ? [`(${facts})`] : [],
    );
    out += `${indent}${propertyKey(name)}${required.has(name) ? "" : "?"}: ${type};\n`;
  }
  if (schema["x-kubernetes-preserve-unknown-fields"] || typeof schema.additionalProperties === "object") {
    out += `${indent}/** Fields this schema does not name. */\n${indent}[field: string]: unknown;\n`;
  }
  return out;
}

function parenthesize(type: string): string {
  return /[|&]/.test(type) && !type.startsWith("{") ? `(${type})` : type;
}
