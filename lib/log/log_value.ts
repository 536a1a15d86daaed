/**
 * Field names whose values are credentials and are never logged in clear: kubeconfig's kebab-case
 * (`client-key-data`) and the camelCase of ExecCredential and our own types (`clientKeyData`,
 * `privateKey`, `certData`).
 */
const SECRET_NAME = /token|password|secret|key-?data|private-?key|authorization|bearer|cert(ificate)?-?data/i;

/**
 * A PEM private key inside any string value. TlsOptions and Credentials hold the key PEM in a field
 * named plainly `key`, but `key` is also the controllers' reconcile key ("ns/name"), which logs must
 * show; so a bare `key` is judged by its value, and a private key is redacted under any name.
 */
const PRIVATE_KEY_PEM = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/** What a redacted value is replaced with. */
export const REDACTED = "[redacted]";

const MAX_DEPTH = 8;

/** Options of {@link toLogValue}. */
export interface LogValueOptions {
  /** Include `stack` in rendered errors. */
  stacks: boolean;
}

/** True when a field with this name must be redacted. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Turns any field value into plain JSON data: errors become `{ name, message, ...own fields,
 * cause? }`, secrets at any depth are redacted, cycles and very deep values are cut off.
 */
export function toLogValue(value: unknown, options: LogValueOptions): unknown {
  return convert(value, options, new Set(), 0);
}

function convert(value: unknown, options: LogValueOptions, seen: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case "string":
      return PRIVATE_KEY_PEM.test(value) ? REDACTED : value;
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      return value.toString();
    case "undefined":
      return undefined;
    case "symbol":
      return value.toString();
    case "function":
      return `[function ${value.name || "anonymous"}]`;
    case "object":
      return convertObject(value, options, seen, depth);
    default:
      return String(value);
  }
}

function convertObject(
  value: object | null,
  options: LogValueOptions,
  seen: Set<object>,
  depth: number,
): unknown {
  if (value === null) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString();
  if (value instanceof Uint8Array) return `[${value.byteLength} bytes]`;
  if (seen.has(value)) return "[circular]";
  if (depth >= MAX_DEPTH) return "[too deep]";
  seen.add(value);
  try {
    const next = (v: unknown) => convert(v, options, seen, depth + 1);
    if (value instanceof Error) return convertError(value, options, next);
    if (Array.isArray(value)) return value.map(next);
    if (value instanceof Map) return convertEntries(value.entries(), next);
    if (value instanceof Set) return [...value].map(next);
    return convertEntries(Object.entries(value), next);
  } finally {
    seen.delete(value);
  }
}

function convertEntries(
  entries: Iterable<[unknown, unknown]>,
  next: (v: unknown) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of entries) {
    const name = String(key);
    out[name] = isSecretName(name) ? REDACTED : next(v);
  }
  return out;
}

function convertError(
  error: Error,
  options: LogValueOptions,
  next: (v: unknown) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = { name: error.name, message: next(error.message) };
  // Own enumerable fields carry the useful details of domain errors (ApiError's code, reason...).
  for (const [key, v] of Object.entries(error)) {
    if (key === "stack" || key === "cause" || key in out) continue;
    out[key] = isSecretName(key) ? REDACTED : next(v);
  }
  if (error.cause !== undefined) out.cause = next(error.cause);
  if (options.stacks && error.stack) out.stack = error.stack;
  return out;
}
