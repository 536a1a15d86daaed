import { isRecord, jsonEqual } from "../_internal/json_equal.ts";

/**
 * The JSON merge patch (RFC 7396) that turns `from` into `to`: changed and new fields with their new value,
 * removed fields as `null`, objects diffed recursively, arrays and scalars replaced whole. Undefined when
 * they are equal. Values must be JSON data. A loop, not recursion: objects nested as deep as the API server
 * allows (10,000 levels) are diffed like any other.
 */
export function mergePatch(from: unknown, to: unknown): unknown {
  if (!isRecord(from) || !isRecord(to)) return jsonEqual(from, to) ? undefined : to;
  const root = frame(from, to);
  const stack: Frame[] = [root];
  let result: Record<string, unknown> | undefined;
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    const key = f.keys[f.next++];
    if (key !== undefined) {
      const value = f.to[key];
      if (value === undefined) continue;
      const old = f.from[key];
      if (isRecord(old) && isRecord(value)) stack.push(frame(old, value, f, key));
      else if (!jsonEqual(old, value)) setField(f.patch, key, value);
      continue;
    }
    for (const gone of Object.keys(f.from)) {
      if (f.from[gone] !== undefined && (!Object.hasOwn(f.to, gone) || f.to[gone] === undefined)) {
        setField(f.patch, gone, null);
      }
    }
    stack.pop();
    const patch = Object.keys(f.patch).length > 0 ? f.patch : undefined;
    if (f.parent === undefined) result = patch;
    else if (patch !== undefined) setField(f.parent.patch, f.key, patch);
  }
  return result;
}

/** One object being diffed: its keys in `to`, the next to look at, the patch so far, and where it goes. */
interface Frame {
  readonly from: Record<string, unknown>;
  readonly to: Record<string, unknown>;
  readonly keys: string[];
  next: number;
  readonly patch: Record<string, unknown>;
  readonly parent: Frame | undefined;
  readonly key: string;
}

function frame(from: Record<string, unknown>, to: Record<string, unknown>, parent?: Frame, key = ""): Frame {
  return { from, to, keys: Object.keys(to), next: 0, patch: {}, parent, key };
}

/** `target[key] = value`, where a `__proto__` key is a field, not the prototype. */
function setField(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}

export { jsonEqual } from "../_internal/json_equal.ts";
