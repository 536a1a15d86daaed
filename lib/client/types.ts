import type { KubeObject } from "../resources/object.ts";

/** Options shared by every request. */
export interface RequestOptions {
  /**
   * Aborts the request.
   * @default {never aborted}
   */
  readonly signal?: AbortSignal | undefined;
}

/** Selectors and resourceVersion semantics for list and watch. */
export interface SelectorOptions extends RequestOptions {
  /**
   * Ask for metadata only: the server answers with `PartialObjectMetadata` (apiVersion, kind, metadata)
   * instead of whole objects, so a cache of, say, Secrets or large ConfigMaps holds a fraction of the
   * bytes. Type the call with {@linkcode PartialObjectMetadata}.
   * @default {false}
   */
  readonly metadataOnly?: boolean;
  /**
   * Namespace to scope a namespaced resource to; omitted means all namespaces.
   * @default {all namespaces}
   */
  readonly namespace?: string;
  /**
   * e.g. "app=nginx,tier!=db".
   * @default {everything}
   */
  readonly labelSelector?: string;
  /**
   * e.g. "metadata.name=x".
   * @default {everything}
   */
  readonly fieldSelector?: string;
  /**
   * kube-apiserver's sharded list and watch (v1.36+, alpha, feature gate `ShardedListAndWatch`), e.g.
   * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`; see `shardSelector` in
   * lib/shard. A server without the feature ignores it and answers with everything: a sharded list's
   * `metadata.shardInfo.selector` echoes it when it was applied.
   * @default {no shard selector}
   */
  readonly shardSelector?: string;
  /**
   * "0" = any cached version; unset = most recent (quorum read).
   * @default {unset: the most recent version (quorum read)}
   */
  readonly resourceVersion?: string;
  /**
   * How `resourceVersion` is interpreted.
   * @default {unset}
   */
  readonly resourceVersionMatch?: "NotOlderThan" | "Exact";
  /**
   * Server-side timeout of the request.
   * @default {the server's default}
   */
  readonly timeoutSeconds?: number;
}

/** Options of one list request. */
export interface ListOptions extends SelectorOptions {
  /**
   * Page size.
   * @default {no limit: one page}
   */
  readonly limit?: number;
  /**
   * Token from the previous page.
   * @default {the first page}
   */
  readonly continue?: string;
  /**
   * Applied to each item as soon as it is decoded, before the next one is read, so the untransformed
   * items never all exist at once: a transform that drops fields (`metadata.managedFields`) lowers the
   * peak memory of a large list by what it drops. What it throws rejects the list. It may be typed with
   * the list's kind, e.g. `(cm: ConfigMap) => ConfigMap`.
   * @default {none: items as the server sent them}
   */
  transformItem?(item: KubeObject): KubeObject;
}

/** Options of a watch request. */
export interface RawWatchOptions extends SelectorOptions {
  /**
   * Ask for BOOKMARK events carrying newer resourceVersions.
   * @default {false}
   */
  readonly allowWatchBookmarks?: boolean;
  /**
   * Streaming list: send the current state as ADDED events first.
   * @default {unset (false)}
   */
  readonly sendInitialEvents?: boolean;
}
