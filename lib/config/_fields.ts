// Typed field readers for kubeconfig validation; every failure names the file and field.
import { ConfigError } from "./config_error.ts";

/** A YAML mapping as parsed. */
export type Mapping = Record<string, unknown>;

/** Where a value sits: the kubeconfig file and the field path inside it. */
export interface At {
  readonly file: string;
  readonly field: string;
}

/** The location of `key` below `at`. */
export function child(at: At, key: string | number): At {
  const field = typeof key === "number" ? `${at.field}[${key}]` : at.field ? `${at.field}.${key}` : key;
  return { file: at.file, field };
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping" : `a ${typeof value}`;
}

/** A ConfigError for a value of the wrong shape. */
export function invalid(at: At, expected: string, value: unknown): ConfigError {
  return new ConfigError(
    `Cannot read kubeconfig "${at.file}": field "${at.field}" must be ${expected}, got ${typeName(value)}`,
    { reason: "InvalidField", file: at.file, field: at.field },
  );
}

/** A ConfigError for a required field that is absent. */
export function missing(at: At): ConfigError {
  return new ConfigError(`Cannot read kubeconfig "${at.file}": field "${at.field}" is required`, {
    reason: "MissingField",
    file: at.file,
    field: at.field,
  });
}

function isMapping(value: unknown): value is Mapping {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A mapping; null/absent read as empty, as Go's decoder does. */
export function mappingAt(value: unknown, at: At): Mapping {
  if (value === undefined || value === null) return {};
  if (!isMapping(value)) throw invalid(at, "a mapping", value);
  return value;
}

/** A list; null/absent read as empty. */
export function listAt(value: unknown, at: At): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid(at, "a list", value);
  return value;
}

/** An optional string field; empty strings count as absent, like Go's zero value. */
export function optString(obj: Mapping, key: string, at: At): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw invalid(child(at, key), "a string", value);
  return value;
}

/** A required non-empty string field. */
export function reqString(obj: Mapping, key: string, at: At): string {
  const value = optString(obj, key, at);
  if (value === undefined) throw missing(child(at, key));
  return value;
}

/** An optional boolean field. */
export function optBool(obj: Mapping, key: string, at: At): boolean | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw invalid(child(at, key), "a boolean", value);
  return value;
}

/** True if `key` is present with a non-empty value. */
export function present(obj: Mapping, key: string): boolean {
  const value = obj[key];
  if (value === undefined || value === null || value === "") return false;
  return !(isMapping(value) && Object.keys(value).length === 0);
}
