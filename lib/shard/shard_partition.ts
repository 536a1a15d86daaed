import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject } from "../resources/object.ts";
import { rangeBounds, rangeOf } from "./hash_range.ts";
import { type ShardKey, shardKeyPath, shardSelector } from "./shard_selector.ts";

/** Whose hash places an object: its own, or its controlling owner's (owned objects follow their owner). */
export type PartitionSource = "self" | "controller";

/** The string an object is hashed on, or undefined when it has none (no controlling owner, say). */
export function hashInput(
  object: DeepReadonly<KubeObject>,
  key: ShardKey,
  source: PartitionSource,
): string | undefined {
  if (key === "namespace") return object.metadata.namespace;
  if (source === "self") return object.metadata.uid;
  return object.metadata.ownerReferences?.find((r) => r.controller === true)?.uid;
}

/**
 * One informer's share of a sharded resource: the objects whose hash lies in the ranges this replica
 * holds (`InformerPartition` of lib/cache). The coordinator moves it; the informer follows.
 *
 * The server can filter only on an object's own uid or namespace: owned objects hashed on their owner's uid
 * are filtered here alone (the server sends them all). While no range is held, the server selector is a
 * range one hash wide (`[0, 1)`), since "nothing" has no spelling; `includes` still rejects everything.
 */
export class ShardPartition {
  /** Distinguishes partitions in the shared informer factory's key. */
  readonly id: string;
  readonly #key: ShardKey;
  readonly #source: PartitionSource;
  readonly #ranges: number;
  readonly #listeners = new Set<() => void>();
  readonly #onSynced: (partition: ShardPartition, version: number) => void;
  #owned = new Set<number>();
  #version = 0;
  #server = false;
  #synced = -1;

  /** A partition of `ranges` ranges hashed on `key` of the object (`self`) or of its controller. */
  constructor(
    id: string,
    key: ShardKey,
    source: PartitionSource,
    ranges: number,
    onSynced: (partition: ShardPartition, version: number) => void,
  ) {
    this.id = `shard:${id}`;
    this.#key = key;
    this.#source = source;
    this.#ranges = ranges;
    this.#onSynced = onSynced;
  }

  /** True when the server can filter this partition on the field it is hashed on. */
  get serverFilterable(): boolean {
    return this.#key === "namespace" || this.#source === "self";
  }

  /** The share's version: the coordinator's scope version when it last changed. */
  get version(): number {
    return this.#version;
  }

  /** The newest version an informer reported as listed, or -1. */
  get syncedVersion(): number {
    return this.#synced;
  }

  /** True while an informer follows this partition. */
  get attached(): boolean {
    return this.#listeners.size > 0;
  }

  /** The server-side selector of the share, when the server filters and the field allows it. */
  get shardSelector(): string | undefined {
    if (!this.#server || !this.serverFilterable) return undefined;
    if (this.#owned.size === 0) {
      const { start } = rangeBounds(0, this.#ranges);
      return `shardRange(${shardKeyPath(this.#key)}, '${start}', '0x0000000000000001')`;
    }
    return shardSelector(this.#key, this.#owned, this.#ranges);
  }

  /** Whether `object` belongs to the share. */
  includes(object: DeepReadonly<KubeObject>): boolean {
    const input = hashInput(object, this.#key, this.#source);
    return input !== undefined && this.#owned.has(rangeOf(input, this.#ranges));
  }

  /** Calls `listener` after every change; returns the function that unsubscribes. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Called by the informer once its store holds the share of `version`. */
  synced(version: number): void {
    this.#synced = Math.max(this.#synced, version);
    this.#onSynced(this, version);
  }

  /** Moves the share to `ranges` at `version`; `server` says whether the API server filters. */
  update(version: number, ranges: readonly number[], server: boolean): void {
    this.#version = version;
    this.#owned = new Set(ranges);
    this.#server = server;
    for (const listener of [...this.#listeners]) listener();
  }
}
