import { checkRangeCount, rangeBounds } from "./hash_range.ts";

/**
 * What objects are hashed on: the fields kube-apiserver's `shardRange()` accepts
 * (`object.metadata.uid` and `object.metadata.namespace`; any other path is answered 500).
 */
export type ShardKey = "uid" | "namespace";

/** The selector's spelling of a key's field path. */
export function shardKeyPath(key: ShardKey): string {
  return key === "uid" ? "object.metadata.uid" : "object.metadata.namespace";
}

/** Throws a TypeError unless `key` is a {@linkcode ShardKey}. */
export function checkShardKey(key: string): asserts key is ShardKey {
  if (key !== "uid" && key !== "namespace") {
    throw new TypeError(`The shard key must be "uid" or "namespace", got "${key}"`);
  }
}

/**
 * The `shardSelector` query value that selects `owned` ranges (indexes of `ranges`) hashed on `key`:
 * adjacent ranges are merged into one `shardRange()`, terms are joined with ` || `, as the server
 * parses it (a CEL expression of `shardRange()` calls and `||` only). Undefined for an empty set: the
 * server refuses an empty selector, and "nothing" cannot be spelled as a range (start must be below end).
 */
export function shardSelector(key: ShardKey, owned: Iterable<number>, ranges: number): string | undefined {
  checkRangeCount(ranges);
  const sorted = [...new Set(owned)].sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const path = shardKeyPath(key);
  const terms: string[] = [];
  let first = sorted[0]!;
  let last = first;
  const flush = () => {
    const { start } = rangeBounds(first, ranges);
    const { end } = rangeBounds(last, ranges);
    terms.push(`shardRange(${path}, '${start}', '${end}')`);
  };
  for (const index of sorted.slice(1)) {
    if (index === last + 1) {
      last = index;
      continue;
    }
    flush();
    first = last = index;
  }
  flush();
  return terms.join(" || ");
}
