import type { Transport } from "../http/types.ts";
import type { Logger } from "../log/logger.ts";
import type { Clock } from "../time/clock.ts";
import type { RequestMetrics } from "./request_metrics.ts";
import type { KubeObject, ObjectList } from "../resources/object.ts";

/**
 * A guard consulted before each write request and, through the transport, right before its first byte
 * is written (see KubeClientOptions.writeFence); `LeaseFence` from lib/leader fits.
 */
export interface WriteFence {
  /** Throws to refuse the write (the error reaches the caller as it is). */
  check(): void;
}

/** Options of a KubeClient. */
export interface KubeClientOptions {
  /**
   * Sends the requests. When absent, the client owns an HttpClient for the TLS identity in use; when
   * an exec plugin hands out a new client certificate, the previous one is closed and a new one made.
   * Owned clients are closed on dispose; a given transport is never closed by the KubeClient.
   * @default {an owned HttpClient per TLS identity}
   */
  readonly transport?: Transport;
  /**
   * Client-side rate limit in requests per second; absent or 0 means no client-side limit.
   * @default {undefined}
   */
  readonly qps?: number;
  /**
   * Burst for `qps`.
   * @default {10}
   */
  readonly burst?: number;
  /**
   * Retries of a request answered 429, or 503 with Retry-After.
   * @default {5}
   */
  readonly maxRetries?: number;
  /**
   * Upper bound of one Retry-After wait.
   * @default {30_000}
   */
  readonly maxRetryWaitMs?: number;
  /**
   * Request metrics hooks.
   * @default {no-op}
   */
  readonly metrics?: RequestMetrics;
  /**
   * Where retries and continue-token restarts are logged.
   * @default {no-op}
   */
  readonly logger?: Logger;
  /**
   * Time source for retries and the limiter.
   * @default {systemClock}
   */
  readonly clock?: Clock;
  /**
   * User-Agent header of every request, whatever the transport.
   * @default {"kubeloop/0.1.0"}
   */
  readonly userAgent?: string;
  /**
   * Consulted for every write (any method but GET and HEAD), synchronously, twice: when the write is
   * handed to the transport (after the rate limiter and the credentials), and as the request's
   * `beforeWrite` gate, which the transport calls right before the first byte is written, after
   * connecting and the TLS handshake, in the same task as the write call. Throwing refuses the write;
   * nothing of it reaches the server. The client's own HttpClient honours the gate; a custom
   * `transport` must call `beforeWrite` itself, or only the first check applies. Give the reconciles'
   * client the leader elector's `LeaseFence`, so no write leaves after the renew deadline, and keep
   * the elector on a client without it.
   * @default {none}
   */
  readonly writeFence?: WriteFence;
  /**
   * Largest response body of a non-watch request, after gzip decoding, for the transport the client
   * owns (HttpClient's `maxBodyBytes`; ignored with `transport`). Raise it for unpaged lists of very
   * large collections.
   * @default {268_435_456 (256 MiB)}
   */
  readonly maxBodyBytes?: number;
}

/** Options of calls that address one object. */
export interface ObjectOptions {
  /**
   * Defaults to the object's own namespace, then the client's namespace (namespaced resources only).
   * @default {the object's namespace, then the client's}
   */
  readonly namespace?: string;
  /**
   * Aborts the request.
   * @default {never aborted}
   */
  readonly signal?: AbortSignal | undefined;
}

/** Options of writes. */
export interface WriteOptions extends ObjectOptions {
  /**
   * Recorded in managedFields.
   * @default {the server's default for the patch type}
   */
  readonly fieldManager?: string;
  /**
   * Validate and admit, but do not persist.
   * @default {false}
   */
  readonly dryRun?: boolean;
}

/** Patch formats the API server understands. */
export type PatchType = "merge" | "json" | "strategic" | "apply";

/** Options of a patch. `apply` is server-side apply and needs a fieldManager. */
export interface PatchOptions extends WriteOptions {
  /** The patch format. */
  readonly type: PatchType;
  /**
   * Server-side apply: take ownership of fields other managers own.
   * @default {false}
   */
  readonly force?: boolean;
  /**
   * e.g. "status".
   * @default {the main resource}
   */
  readonly subresource?: string;
}

/** Options of a delete. */
export interface DeleteOptions extends ObjectOptions {
  /**
   * What happens to dependents.
   * @default {the server's default (Background for most kinds)}
   */
  readonly propagationPolicy?: "Background" | "Foreground" | "Orphan";
  /**
   * Overrides the object's termination grace period.
   * @default {the object's own grace period}
   */
  readonly gracePeriodSeconds?: number;
  /**
   * Delete only if uid / resourceVersion still match (409 otherwise).
   * @default {none}
   */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  /**
   * Validate and admit, but do not delete.
   * @default {false}
   */
  readonly dryRun?: boolean;
}

/** A page from `listAll`; `restarted` is true on the first page after an expired continue token. */
export type ListPage<T extends KubeObject> = ObjectList<T> & { readonly restarted: boolean };
