import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject } from "../resources/object.ts";

/**
 * The share of a resource an informer caches, when replicas split the work (lib/shard makes these). It
 * changes as ranges move between replicas: the informer then lists again with the new scope and swaps
 * its store, so objects of ranges no longer held leave the cache and newly held ones arrive, as ordinary
 * deletes and adds.
 *
 * Both filters apply: `shardSelector` lets a server with sharded list and watch send only the share, and
 * `includes` is checked on every object the informer receives, so a server that ignores the selector (no
 * feature gate, or an older replica of the API server) still leaves only the share in the cache.
 */
export interface InformerPartition {
  /** Distinguishes partitions in the shared informer factory's key. */
  readonly id: string;
  /** Increases on every change of the share. */
  readonly version: number;
  /** The server-side selector of the current share; undefined: the server is not asked to filter. */
  readonly shardSelector: string | undefined;
  /** Whether `object` belongs to the current share. */
  includes(object: DeepReadonly<KubeObject>): boolean;
  /** Calls `listener` after every change; returns the function that unsubscribes. */
  subscribe(listener: () => void): () => void;
  /** The informer reports that the store now holds exactly the share of `version`. */
  synced(version: number): void;
}
