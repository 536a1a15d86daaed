/**
 * Fields a version cannot hold, kept in an annotation and put back, the way Kubernetes' own conversions keep
 * newer fields when an object is stored in an older version.
 * @module
 */
import { escapeKey, type JsonValue } from "./json_patch.ts";

type JsonObject = { [key: string]: JsonValue };

const ENVELOPE = new Set(["apiVersion", "kind", "metadata"]);

/**
 * The members of `original` (outside apiVersion, kind and metadata) that `roundTrip` lacks, as RFC 6901
 * pointers to their values: the highest missing member of each lost subtree. Objects are compared member
 * by member and arrays index by index when both have the same length; a member present in both with
 * different values is not lost (the converters changed it on purpose).
 */
export function lostFields(original: JsonObject, roundTrip: JsonObject): Record<string, JsonValue> {
  const lost: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(original)) {
    if (ENVELOPE.has(key)) continue;
    collect(lost, `/${escapeKey(key)}`, value, Object.hasOwn(roundTrip, key) ? roundTrip[key] : undefined);
  }
  return lost;
}

function collect(
  lost: Record<string, JsonValue>,
  path: string,
  had: JsonValue,
  has: JsonValue | undefined,
): void {
  if (has === undefined) {
    lost[path] = had;
    return;
  }
  if (isObject(had) && isObject(has)) {
    for (const [key, value] of Object.entries(had)) {
      collect(lost, `${path}/${escapeKey(key)}`, value, Object.hasOwn(has, key) ? has[key] : undefined);
    }
  } else if (Array.isArray(had) && Array.isArray(has) && had.length === has.length) {
    had.forEach((value, i) => collect(lost, `${path}/${i}`, value, has[i]));
  }
}

/**
 * Puts each preserved member back into `target` where `target` has nothing at its path. A member whose
 * parent is missing or not a container is dropped: the object changed since it was preserved, and the
 * newer content wins.
 */
export function restoreFields(target: JsonObject, preserved: Readonly<Record<string, JsonValue>>): void {
  for (const [pointer, value] of Object.entries(preserved)) {
    const tokens = pointer.split("/").slice(1).map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
    if (tokens.length === 0 || ENVELOPE.has(tokens[0]!)) continue;
    let container: JsonValue = target;
    for (const token of tokens.slice(0, -1)) {
      container = childOf(container, token) ?? null;
      if (container === null) break;
    }
    const last = tokens.at(-1)!;
    if (isObject(container) && !Object.hasOwn(container, last)) container[last] = value;
  }
}

function childOf(container: JsonValue, token: string): JsonValue | undefined {
  if (isObject(container)) return Object.hasOwn(container, token) ? container[token] : undefined;
  if (Array.isArray(container) && /^(0|[1-9][0-9]*)$/.test(token)) return container[Number(token)];
  return undefined;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
