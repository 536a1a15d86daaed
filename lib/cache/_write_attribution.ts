/**
 * Whether a change in the cache is a write's own doing and nothing else's: the test that decides whether
 * the writing controller may skip it. Wrongly saying yes would lose a change someone else made (the
 * controller never reconciles it); wrongly saying no costs one needless reconcile. So every doubt is a no.
 * @module
 */
import { isRecord, jsonEqual } from "../_internal/json_equal.ts";
import type { WriteStart } from "../client/write_listener.ts";
import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject } from "../resources/object.ts";

type Path = readonly string[];

/**
 * Deeper than this, objects are not walked: a difference there is nobody's in particular (so not the
 * write's own), and a patch's fields there cover nothing. The API server accepts objects nested 10,000
 * levels deep; recursion that far could overflow the stack, and real objects stay far shallower.
 */
const MAX_DEPTH = 100;

/** Set by the server on every write, whoever made it. */
const SERVER_SET: readonly Path[] = [
  ["apiVersion"], // list items lack it, write answers carry it
  ["kind"],
  ["metadata", "resourceVersion"],
  ["metadata", "generation"],
  ["metadata", "managedFields"],
];

/**
 * True when every difference between `before` (what the cache held) and `after` (what the write left)
 * is one `write` made: always for a create; for a write with a resourceVersion precondition equal to
 * `before`'s (nothing else can have happened in between); otherwise when each difference lies in a field
 * the write set: a merge or apply patch's fields (a list only when what is there now came from the patch
 * or was there before), a replace's whole object (status for a status write, everything else for the
 * main resource), a delete's deletion fields. A JSON patch without precondition never qualifies. An
 * apply that created the object (nothing cached before) qualifies when the object holds nothing but
 * what it sent and the server's identity fields: had it existed, with fields of someone else's, the
 * controller would have written in ignorance of them and must look again.
 */
export function isOwnChange(
  before: DeepReadonly<KubeObject> | undefined,
  after: DeepReadonly<KubeObject>,
  write: WriteStart,
): boolean {
  if (!before || before.metadata.uid !== after.metadata.uid) {
    if (write.verb === "create") return true;
    if (write.verb !== "patch" || write.patchType !== "apply") return false;
    return isOwnChange(identityOf(after), after, write);
  }
  const precondition = preconditionOf(write);
  if (precondition !== undefined && precondition === before.metadata.resourceVersion) return true;
  const differences: Path[] = [];
  diff(before, after, [], differences);
  return differences.every((path) =>
    SERVER_SET.some((p) => startsWith(path, p)) || covered(path, before, after, write)
  );
}

/** What the server sets on a new object: where an apply that created `object` started from. */
function identityOf(object: DeepReadonly<KubeObject>): KubeObject {
  const { name, namespace, uid, creationTimestamp } = object.metadata;
  return {
    metadata: {
      ...(name === undefined ? {} : { name }),
      ...(namespace === undefined ? {} : { namespace }),
      ...(uid === undefined ? {} : { uid }),
      ...(creationTimestamp === undefined ? {} : { creationTimestamp }),
    },
  };
}

/** The resourceVersion a write is conditional on, if any. */
function preconditionOf(write: WriteStart): string | undefined {
  const body = write.body;
  if (write.verb === "delete") return stringAt(body, ["preconditions", "resourceVersion"]);
  if (write.patchType === "json") {
    if (!Array.isArray(body)) return undefined;
    const test = body.find((op) =>
      isRecord(op) && op.op === "test" && op.path === "/metadata/resourceVersion"
    );
    return isRecord(test) && typeof test.value === "string" ? test.value : undefined;
  }
  return stringAt(body, ["metadata", "resourceVersion"]);
}

function covered(path: Path, before: unknown, after: unknown, write: WriteStart): boolean {
  // Only the server sets these, on a delete: whatever else the write was, someone deleted the object.
  const deletion = path.length === 2 && path[0] === "metadata" &&
    (path[1] === "deletionTimestamp" || path[1] === "deletionGracePeriodSeconds");
  if (deletion || write.verb === "delete") return deletion && write.verb === "delete";
  const status = path[0] === "status";
  const onStatus = write.subresource === "status";
  if (write.subresource !== undefined && !onStatus) return false;
  switch (write.verb) {
    case "create":
      return false; // a create over an existing object (same uid) is not possible; be safe
    case "replace":
      return status === onStatus;
    case "patch": {
      if (write.patchType === "json" || status !== onStatus) return false;
      const leaf = leaves(write.body).find((l) => startsWith(path, l));
      if (!leaf) return false;
      const sent = valueAt(write.body, leaf);
      if (!Array.isArray(sent) || leaf.length !== path.length) return true;
      const now = valueAt(after, path);
      const then = valueAt(before, path);
      return write.patchType === "merge" ? jsonEqual(now, sent) : listFromPatch(now, then, sent);
    }
  }
}

/**
 * A list a key-merging patch (apply, strategic merge) set: every item now is one sent or one that was
 * there, and every item gone was replaced by one sent with the same `name` or `type`.
 */
function listFromPatch(now: unknown, then: unknown, sent: readonly unknown[]): boolean {
  const after = Array.isArray(now) ? now : [];
  const before = Array.isArray(then) ? then : [];
  const has = (list: readonly unknown[], item: unknown) => list.some((x) => jsonEqual(x, item));
  if (!after.every((item) => has(sent, item) || has(before, item))) return false;
  return before.filter((item) => !has(after, item)).every((gone) => sent.some((s) => sameKey(s, gone)));
}

function sameKey(a: unknown, b: unknown): boolean {
  if (!isRecord(a) || !isRecord(b)) return false;
  for (const key of ["name", "type"]) {
    if (typeof a[key] === "string" && a[key] === b[key]) return true;
  }
  return false;
}

/** Paths where `a` and `b` differ; objects are compared key by key (a missing one as empty), lists whole. */
function diff(a: unknown, b: unknown, path: string[], out: Path[]): void {
  if (isRecord(a) || isRecord(b)) {
    if (path.length >= MAX_DEPTH) {
      if (!jsonEqual(a, b)) out.push([...path]);
      return;
    }
    if ((a !== undefined && !isRecord(a)) || (b !== undefined && !isRecord(b))) {
      out.push([...path]);
      return;
    }
    const x = a ?? {};
    const y = b ?? {};
    for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
      diff(x[key], y[key], [...path, key], out);
    }
    return;
  }
  if (!jsonEqual(a, b)) out.push([...path]);
}

/** The paths of a patch body's values that are not objects (lists, scalars, null); objects are walked. */
function leaves(body: unknown, path: string[] = [], out: Path[] = []): Path[] {
  if (!isRecord(body)) {
    if (path.length > 0) out.push(path);
    return out;
  }
  if (path.length >= MAX_DEPTH) return out;
  for (const [key, value] of Object.entries(body)) leaves(value, [...path, key], out);
  return out;
}

function valueAt(value: unknown, path: Path): unknown {
  let at = value;
  for (const key of path) at = isRecord(at) ? at[key] : undefined;
  return at;
}

function stringAt(value: unknown, path: Path): string | undefined {
  const at = valueAt(value, path);
  return typeof at === "string" ? at : undefined;
}

function startsWith(path: Path, prefix: Path): boolean {
  return prefix.length <= path.length && prefix.every((key, i) => path[i] === key);
}
