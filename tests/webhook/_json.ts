/**
 * Random JSON documents and an RFC 6902 patch applier for the webhook tests (the applier is written from
 * the RFC for these tests; tests/integration/webhook_admission_test.ts checks the patches against
 * kube-apiserver's own applier too).
 * @module
 */
import type { JsonPatchOperation, JsonValue } from "../../lib/webhook/json_patch.ts";

type JsonObject = { [key: string]: JsonValue };

/** Member names that need escaping or look like indexes or prototypes, besides plain ones. */
const KEYS = ["a", "b", "c", "name", "x~y", "p/q", "~1", "0", "__proto__", "", "ü", "spec"];

/** What the random documents may hold. */
export interface JsonShape {
  /** Member names to pick from. @default {names that need escaping, "", "__proto__", …} */
  readonly keys?: readonly string[];
  /** Whether null appears. @default {true} */
  readonly nulls?: boolean;
}

let shape: Required<JsonShape> = { keys: KEYS, nulls: true };

/** Runs `fn` with the generators limited to `limits` (kube-apiserver drops null members and empty names). */
export function withShape<T>(limits: JsonShape, fn: () => T): T {
  const previous = shape;
  shape = { keys: limits.keys ?? KEYS, nulls: limits.nulls ?? true };
  try {
    return fn();
  } finally {
    shape = previous;
  }
}

/** A random JSON value of depth at most `depth`. */
export function randomJson(random: () => number, depth: number): JsonValue {
  const pick = Math.floor(random() * (depth > 0 ? 8 : 5));
  switch (pick) {
    case 0:
      return shape.nulls ? null : "null";
    case 1:
      return random() < 0.5;
    case 2:
      return Math.floor(random() * 200) - 100;
    case 3:
      return ["", "x", "y/z", "~0", "long ".repeat(3)][Math.floor(random() * 5)]!;
    case 4:
      return random() * 10;
    case 5:
    case 6:
      return randomObject(random, depth - 1);
    default:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, depth - 1));
  }
}

/** A random JSON object. */
export function randomObject(random: () => number, depth: number): JsonObject {
  const out: JsonObject = {};
  const n = Math.floor(random() * 4);
  for (let i = 0; i < n; i++) {
    Object.defineProperty(out, shape.keys[Math.floor(random() * shape.keys.length)]!, {
      value: randomJson(random, depth),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** A random variation of `value`: members changed, added and removed, elements inserted and dropped. */
export function mutateJson(random: () => number, value: JsonValue, depth: number): JsonValue {
  if (random() < 0.15) return randomJson(random, depth);
  if (Array.isArray(value)) {
    const out = value.map((v) => random() < 0.3 ? mutateJson(random, v, depth - 1) : structuredClone(v));
    if (random() < 0.3) out.splice(Math.floor(random() * (out.length + 1)), 0, randomJson(random, depth - 1));
    if (random() < 0.3 && out.length > 0) out.splice(Math.floor(random() * out.length), 1);
    return out;
  }
  if (typeof value === "object" && value !== null) {
    const out: JsonObject = {};
    for (const [key, v] of Object.entries(value)) {
      if (random() < 0.15) continue;
      set(out, key, random() < 0.3 ? mutateJson(random, v, depth - 1) : structuredClone(v));
    }
    if (random() < 0.3) {
      set(out, shape.keys[Math.floor(random() * shape.keys.length)]!, randomJson(random, depth - 1));
    }
    return out;
  }
  return value;
}

function set(object: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Applies `ops` to a copy of `document` as RFC 6902 says; throws on an operation that does not apply. */
export function applyPatch(document: JsonValue, ops: readonly JsonPatchOperation[]): JsonValue {
  let root = structuredClone(document);
  for (const op of ops) {
    if (op.path === "") {
      if (op.op === "remove") throw new Error("cannot remove the root");
      root = structuredClone(op.value);
      continue;
    }
    const tokens = op.path.split("/").slice(1).map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
    let parent: JsonValue = root;
    for (const token of tokens.slice(0, -1)) {
      parent = child(parent, token, op.path);
    }
    const last = tokens.at(-1)!;
    if (Array.isArray(parent)) {
      const index = last === "-" ? parent.length : Number(last);
      if (!/^(0|[1-9][0-9]*|-)$/.test(last) || index > parent.length) throw new Error(`bad index ${op.path}`);
      if (op.op === "add") parent.splice(index, 0, structuredClone(op.value));
      else if (index >= parent.length) throw new Error(`no element at ${op.path}`);
      else if (op.op === "replace") parent[index] = structuredClone(op.value);
      else parent.splice(index, 1);
    } else if (typeof parent === "object" && parent !== null) {
      const exists = Object.hasOwn(parent, last);
      if (op.op !== "add" && !exists) throw new Error(`no member at ${op.path}`);
      if (op.op === "remove") delete parent[last];
      else set(parent, last, structuredClone(op.value));
    } else {
      throw new Error(`not a container at ${op.path}`);
    }
  }
  return root;
}

function child(container: JsonValue, token: string, path: string): JsonValue {
  if (Array.isArray(container) && /^(0|[1-9][0-9]*)$/.test(token) && Number(token) < container.length) {
    return container[Number(token)]!;
  }
  if (
    typeof container === "object" && container !== null && !Array.isArray(container) &&
    Object.hasOwn(container, token)
  ) {
    return container[token]!;
  }
  throw new Error(`no container at ${path}`);
}
