/**
 * Patch application for FakeApi: JSON merge patch (RFC 7396), JSON patch (RFC 6902: add, remove,
 * replace, test, copy, move) and the server-side apply approximation.
 * @module
 */

type Json = unknown;

/** Applies a JSON merge patch to a copy of `target`. */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (!isRecord(patch)) return structuredClone(patch);
  const out: Record<string, Json> = isRecord(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}

/** One RFC 6902 operation. */
interface Operation {
  op: string;
  path: string;
  value?: Json;
  from?: string;
}

/** Applies a JSON patch to a copy of `target`; throws a RangeError (HTTP 422) when an operation fails. */
export function applyJsonPatch(target: Json, patch: Json): Json {
  if (!Array.isArray(patch)) throw new RangeError("A JSON patch must be an array of operations");
  let doc = structuredClone(target);
  for (const [i, op] of (patch as unknown[]).entries()) {
    if (!isOperation(op)) throw new RangeError(`JSON patch operation ${i} needs a string "op" and "path"`);
    switch (op.op) {
      case "add":
        doc = setAt(doc, pointer(op.path), structuredClone(op.value), "add");
        break;
      case "replace":
        getAt(doc, pointer(op.path));
        doc = setAt(doc, pointer(op.path), structuredClone(op.value), "replace");
        break;
      case "remove":
        getAt(doc, pointer(op.path));
        doc = setAt(doc, pointer(op.path), undefined, "remove");
        break;
      case "test":
        if (!sameJson(getAt(doc, pointer(op.path)), op.value)) {
          throw new RangeError(`JSON patch test failed at "${op.path}"`);
        }
        break;
      case "copy":
        doc = setAt(doc, pointer(op.path), structuredClone(getAt(doc, fromPointer(op, i))), "add");
        break;
      case "move": {
        const value = getAt(doc, fromPointer(op, i));
        doc = setAt(doc, fromPointer(op, i), undefined, "remove");
        doc = setAt(doc, pointer(op.path), value, "add");
        break;
      }
      default:
        throw new RangeError(`Unsupported JSON patch operation "${op.op}"`);
    }
  }
  return doc;
}

/**
 * The server-side apply approximation: `config` merged into a copy of `live`: objects recursively,
 * lists of objects that all carry `name` (or all carry `type`, or `uid`) merged by that key, other lists
 * replaced. Removing the fields a manager applied before and leaves out now is {@linkcode appliedPaths}'
 * and {@linkcode removePaths}' job.
 */
export function applyConfiguration(live: Json, config: Json): Json {
  if (isRecord(config)) {
    const out: Record<string, Json> = isRecord(live) ? structuredClone(live) : {};
    for (const [key, value] of Object.entries(config)) {
      if (value !== undefined) out[key] = applyConfiguration(out[key], value);
    }
    return out;
  }
  if (Array.isArray(config) && Array.isArray(live)) {
    const key = ["name", "type", "uid"].find((k) =>
      [...config, ...live].every((item) => isRecord(item) && typeof item[k] === "string")
    );
    if (!key) return structuredClone(config);
    const out = live.map((item) => structuredClone(item)) as Record<string, Json>[];
    for (const item of config as Record<string, Json>[]) {
      const at = out.findIndex((existing) => existing[key] === item[key]);
      if (at >= 0) out[at] = applyConfiguration(out[at], item) as Record<string, Json>;
      else out.push(structuredClone(item));
    }
    return out;
  }
  return structuredClone(config);
}

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new RangeError(`Invalid JSON pointer "${path}"`);
  return path.slice(1).split("/").map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** The `from` of a copy or move. */
function fromPointer(op: Operation, index: number): string[] {
  if (typeof op.from !== "string") {
    throw new RangeError(`JSON patch operation ${index} (${op.op}) needs "from"`);
  }
  return pointer(op.from);
}

function getAt(doc: Json, parts: string[]): Json {
  let at: Json = doc;
  for (const part of parts) {
    if (Array.isArray(at)) at = at[Number(part)];
    else if (isRecord(at) && Object.hasOwn(at, part)) at = at[part];
    else throw new RangeError(`JSON patch path "/${parts.join("/")}" does not exist`);
    if (at === undefined) throw new RangeError(`JSON patch path "/${parts.join("/")}" does not exist`);
  }
  return at;
}

function setAt(doc: Json, parts: string[], value: Json, mode: "add" | "replace" | "remove"): Json {
  if (parts.length === 0) return value;
  const parent = getAt(doc, parts.slice(0, -1));
  const last = parts.at(-1)!;
  if (Array.isArray(parent)) {
    const index = last === "-" ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) {
      throw new RangeError(`JSON patch index "${last}" is out of range`);
    }
    if (mode === "add") parent.splice(index, 0, value);
    else if (mode === "replace") parent[index] = value;
    else parent.splice(index, 1);
  } else if (isRecord(parent)) {
    if (mode === "remove") delete parent[last];
    else parent[last] = value;
  } else {
    throw new RangeError(`JSON patch path "/${parts.join("/")}" has no parent object`);
  }
  return doc;
}

function isRecord(value: unknown): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isOperation(value: unknown): value is Operation {
  return isRecord(value) && typeof value.op === "string" && typeof value.path === "string";
}

/** True when `a` and `b` are the same JSON value (object keys in any order). */
export function sameJson(a: Json, b: Json): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(value: Json): Json {
  if (Array.isArray(value)) return value.map(sorted);
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted(value[k])]));
}

/**
 * The fields an apply body sets, as paths of map keys (lists and scalars are leaves): what its field
 * manager owns afterwards. `metadata.name` and `metadata.namespace` are identity, not owned fields.
 */
export function appliedPaths(config: Json, prefix: readonly string[] = []): string[] {
  if (!isRecord(config)) return [JSON.stringify(prefix)];
  const out: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    const path = [...prefix, key];
    if (path.length === 2 && path[0] === "metadata" && (key === "name" || key === "namespace")) continue;
    out.push(...appliedPaths(value, path));
  }
  return out;
}

/** Deletes the fields at `paths` (as made by {@linkcode appliedPaths}) from `doc`, in place. */
export function removePaths(doc: Json, paths: readonly string[]): void {
  for (const encoded of paths) {
    const path = JSON.parse(encoded) as string[];
    let at: Json = doc;
    for (const key of path.slice(0, -1)) at = isRecord(at) ? at[key] : undefined;
    const last = path.at(-1);
    if (isRecord(at) && last !== undefined) delete at[last];
  }
}
