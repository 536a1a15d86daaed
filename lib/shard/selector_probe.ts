import type { ListOptions } from "../client/types.ts";
import type { KubeObject, ObjectList, ResourceRef } from "../resources/object.ts";
import { ShardConfigError } from "./errors.ts";
import { type ShardKey, shardSelector } from "./shard_selector.ts";

/** Whether the API server filters by shard selector ("server") or ignores it ("client": filter here). */
export type SelectorSupport = "server" | "client";

/** What the probe needs from the API client; KubeClient satisfies it. */
export interface ListClient {
  /** Lists one page. */
  list<T extends KubeObject>(ref: ResourceRef<T>, options: ListOptions): Promise<ObjectList<T>>;
}

/**
 * Detects whether the API server applies shard selectors: one list of at most one `ref` (a built-in kind;
 * the coordinator uses the Leases it may list anyway) with a selector of the whole hash space. A server
 * with sharded list and watch (v1.36+, gate `ShardedListAndWatch` on) echoes it in
 * `metadata.shardInfo.selector`; one without (gate off, v1.34) ignores the parameter and answers as if it
 * were absent. Custom resources cannot be probed this way: kube-apiserver v1.37.2 filters their lists but
 * never echoes the selector (UnstructuredList has no shardInfo). The gate is the API server's, so the answer
 * for a built-in kind holds for the custom resources it serves. An error that names the shard selector (the
 * server's parser answers 500 "invalid shard selector: …") is a {@linkcode ShardConfigError}; other errors
 * are thrown as they are.
 */
export async function probeShardSelector(
  client: ListClient,
  ref: ResourceRef,
  key: ShardKey,
  options: { namespace?: string; signal?: AbortSignal } = {},
): Promise<SelectorSupport> {
  const selector = shardSelector(key, [0], 1)!;
  try {
    const list = await client.list(ref, { ...options, limit: 1, shardSelector: selector });
    return list.metadata.shardInfo?.selector === selector ? "server" : "client";
  } catch (error) {
    if (error instanceof Error && /shard selector/i.test(error.message)) {
      throw new ShardConfigError(
        `The API server rejects the shard selector for ${ref.plural}: ${error.message}`,
        "selectorRejected",
        { cause: error },
      );
    }
    throw error;
  }
}
