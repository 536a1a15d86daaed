import type { KubeObject, ResourceRef } from "../resources/object.ts";
import type { ListOptions, RawWatchOptions } from "../client/types.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import type { ListWatcher } from "./list_watcher.ts";
import type { RawWatchEventType } from "./watch_event.ts";
import { WatchEventDecoder } from "./watch_event_decoder.ts";
import type { WatcherEvent } from "./watcher_event.ts";
import {
  type InitialListMode,
  initialState,
  nextAction,
  step,
  streamIsOpen,
  type WatcherAction,
  type WatcherInput,
} from "./watcher_state.ts";
import { WatchStreamReader } from "./watch_stream_reader.ts";
import { WatchIdleTimeoutError } from "./watch_idle_timeout_error.ts";
import { WatchHeartbeat } from "./_heartbeat.ts";

/**
 * Observation points for metrics; all optional.
 * @experimental The hooks may gain or change members as tracing lands.
 */
export interface WatcherHooks {
  /** A list request is about to be sent. */
  onList?(options: ListOptions): void;
  /** A watch request is about to be sent (the first, and every restart). */
  onWatch?(options: RawWatchOptions): void;
  /** A wire event was decoded. */
  onWireEvent?(type: RawWatchEventType): void;
  /** A list page or a watch request was answered with success: the server is reachable. */
  onConnected?(): void;
}

/** Options of {@linkcode watcher}. */
export interface WatcherOptions {
  /**
   * Stops the watcher: the iteration ends (no error) and the connection is closed.
   * @default {never aborted}
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Namespace of a namespaced resource; omitted means all namespaces.
   * @default {all namespaces}
   */
  readonly namespace?: string;
  /**
   * Label selector, e.g. "app=web".
   * @default {everything}
   */
  readonly labelSelector?: string;
  /**
   * Field selector, e.g. "metadata.name=x".
   * @default {everything}
   */
  readonly fieldSelector?: string;
  /**
   * The server's shard selector for every list and watch (see `SelectorOptions.shardSelector`); a server
   * without the feature ignores it, so filter on the client too.
   * @default {none}
   */
  readonly shardSelector?: string;
  /**
   * List and watch metadata only (`PartialObjectMetadata` objects); see `SelectorOptions.metadataOnly`.
   * @default {false}
   */
  readonly metadataOnly?: boolean;
  /**
   * How to get the initial state; see {@linkcode InitialListMode}.
   * @default {"paged"}
   */
  readonly initialList?: InitialListMode;
  /**
   * Page size of paged lists. Larger than client-go's 500 because kube-apiserver's CPU per list grows
   * with the number of pages: pages of 5,000 cost it 0.45-0.75x the CPU of pages of 500 for 50,000
   * ConfigMaps and 0.50-0.81x for 10,000 (v1.37 and v1.34), with the same peak memory in the client
   * (bench/RESULTS.md).
   * Lower it for large objects on a server that reads lists from etcd or builds a page's response
   * whole (before v1.33): a page is bounded by count, not bytes.
   * @default {5000}
   */
  readonly pageSize?: number;
  /**
   * The server-side `timeoutSeconds` of each watch is drawn uniformly from [min, max), so that many
   * watchers do not reconnect in lockstep. kube-apiserver ends a watch at its `timeoutSeconds`, so a watch
   * still open `idleMarginMs` later is presumed dead: short watches bound how long a connection that
   * stalls without closing can blind the cache (at most max + margin, 35 s by default, where HTTP/1.1 has
   * no ping to tell). The price is one watch request (and connection) per watcher every 15 to 30 s,
   * served from the server's watch cache.
   * @default {[15, 30]}
   */
  readonly timeoutSecondsRange?: readonly [number, number];
  /**
   * `timeoutSeconds` range of the watch that streams the initial state (`sendInitialEvents`), which must
   * not be cut by the server before a large initial state is through (until then `heartbeatMs` bounds its
   * silence). Once the initial state is through, the client ends that watch itself after a time drawn from
   * `timeoutSecondsRange` and resumes with a short one.
   * @default {[300, 600]}
   */
  readonly streamingListTimeoutSecondsRange?: readonly [number, number];
  /**
   * Time allowed beyond `timeoutSeconds` before a watch still open (or silent that long) is presumed dead.
   * @default {5000}
   */
  readonly idleMarginMs?: number;
  /**
   * A fixed idle timeout in ms, overriding `timeoutSeconds * 1000 + idleMarginMs` and `heartbeatMs` as
   * the bound on silence (a watch still open past `timeoutSeconds` plus margin is given up all the same).
   * @default {timeoutSeconds * 1000 + idleMarginMs}
   */
  readonly idleTimeoutMs?: number;
  /**
   * Silence after which a watch is presumed dead while the server sends periodic bookmarks
   * (kube-apiserver: about one a minute on watches served from its watch cache). Resources without them
   * fall back to `timeoutSeconds * 1000 + idleMarginMs` after two silent periods; 0 turns it off.
   * @default {90000}
   */
  readonly heartbeatMs?: number;
  /**
   * Longest accepted event line in bytes.
   * @default {16777216}
   */
  readonly maxLineBytes?: number;
  /**
   * Time source for idle timeouts.
   * @default {systemClock}
   */
  readonly clock?: Clock;
  /**
   * Source of randomness in [0, 1).
   * @default {Math.random}
   */
  readonly random?: () => number;
  /**
   * Where notices go.
   * @default {noopLogger}
   */
  readonly logger?: Logger;
  /**
   * Metric hooks.
   * @default {none}
   */
  readonly hooks?: WatcherHooks;
  /**
   * Given to the client as the `transformItem` of every list request, so each item of a list page is
   * transformed as it is decoded and the page's untransformed items never all exist at once (an
   * informer passes its managedFields stripping and `transform` here). Objects of watch events are not
   * touched, and a client may ignore it: a consumer must tolerate both.
   * @default {none}
   */
  readonly listItemTransform?: (object: KubeObject) => KubeObject;
}

/**
 * Lists then watches `ref`, forever, as an async iterable of {@linkcode WatcherEvent}s.
 *
 * Guarantees:
 * - Every list, the first and each after a 410, is a consistent read (no resourceVersion) in pages of
 *   `pageSize`, so the cache never starts from, or goes back to, an older state than the server had. With
 *   a streaming list ("stream", or "auto" when the server supports it) the initial state comes from a
 *   watch with `sendInitialEvents=true`, also a consistent read.
 * - Watches request bookmarks and resume from the newest resourceVersion seen, bookmarks included,
 *   after a clean end, a network error, a decode error or an idle timeout. Nothing is lost or repeated.
 * - A watch still open `idleMarginMs` (5 s) after its `timeoutSeconds` (15 to 30 s), when the server
 *   would have ended it, is presumed dead and replaced (`WatchDeadlineError`), so a connection that
 *   stalls without closing blinds the cache for at most 35 s. The streaming list's watch, kept longer by
 *   the server, is ended by the client 15 to 30 s after its initial state is through, and given up before
 *   that after `heartbeatMs` (90 s) of silence while the server sends periodic bookmarks.
 * - 410 Gone (answer or ERROR event, code 410 or reason Expired/Gone) leads to a relist.
 * - A watch that closes cleanly within a second without any event (a server or proxy answering 200
 *   and hanging up) is yielded as a `WatchEndedEarlyError`, so a backoff wrapper slows the
 *   reconnects; the normal end of a watch at its `timeoutSeconds` is silent.
 * - Other failures are yielded as `{ type: "error" }` and the next pull retries; the watcher never
 *   sleeps, so wrap it in `withBackoff` (or pace the pulls yourself).
 * - Aborting `signal` or leaving the `for await` early closes the connection.
 *
 * It does not guarantee that `apply` objects differ from what a consumer already has (a relist
 * re-applies everything); the store computes the real change set.
 *
 * @example List, then watch one ConfigMap come and go
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONFIG_MAPS, KubeClient, loadConfig, watcher } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * const namespace = client.namespace;
 * const name = `example-${crypto.randomUUID().slice(0, 8)}`;
 * const scope = { namespace, fieldSelector: `metadata.name=${name}` };
 * const events: string[] = [];
 * for await (const event of watcher(client, CONFIG_MAPS, scope)) {
 *   events.push(event.type);
 *   if (event.type === "error") throw event.error; // a program retries instead: see withBackoff
 *   if (event.type === "initDone") await client.create(CONFIG_MAPS, { metadata: { name, namespace } });
 *   if (event.type === "apply") await client.delete(CONFIG_MAPS, name, { namespace });
 *   if (event.type === "delete") break; // leaving the loop closes the watch
 * }
 * assert.deepEqual(events, ["init", "initDone", "apply", "delete"]);
 * ```
 */
export async function* watcher<T extends KubeObject = KubeObject>(
  client: ListWatcher,
  ref: ResourceRef<T>,
  options: WatcherOptions = {},
): AsyncGenerator<WatcherEvent<T>, void, undefined> {
  const { signal, clock = systemClock, random = Math.random, logger = noopLogger, hooks = {} } = options;
  const transformItem = options.listItemTransform;
  const pageSize = options.pageSize ?? 5000;
  const watchTimeouts = options.timeoutSecondsRange ?? [15, 30];
  const streamingTimeouts = options.streamingListTimeoutSecondsRange ?? [300, 600];
  const validRange = ([min, max]: readonly [number, number]) => min >= 1 && max >= min;
  if (!(pageSize >= 1) || !validRange(watchTimeouts) || !validRange(streamingTimeouts)) {
    throw new RangeError(
      `Cannot watch ${ref.plural}: invalid pageSize, timeoutSecondsRange or streamingListTimeoutSecondsRange`,
    );
  }
  const marginMs = options.idleMarginMs ?? 5_000;
  const drawSeconds = ([min, max]: readonly [number, number]) => Math.floor(min + random() * (max - min));
  const selectors = definedOnly({
    namespace: options.namespace,
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    shardSelector: options.shardSelector,
    metadataOnly: options.metadataOnly,
    signal,
  });
  let state = initialState(options.initialList ?? "paged");
  const heartbeat = new WatchHeartbeat(options.heartbeatMs ?? 90_000);
  let stream: WatchStreamReader<T> | undefined;
  const onAbort = () => void stream?.close();
  signal?.addEventListener("abort", onAbort, { once: true });

  // Paged lists: the next page is requested as soon as a page arrives, so the server (and the network)
  // work on it while this page is turned into events and cached. It is used only when the state machine
  // asks for exactly that continue token; otherwise it is cancelled.
  let prefetch: { token: string; page: Promise<WatcherInput<T>>; cancel: AbortController } | undefined;
  const dropPrefetch = async () => {
    const dropped = prefetch;
    prefetch = undefined;
    if (dropped) {
      dropped.cancel.abort();
      await dropped.page;
    }
  };
  async function listPage(opts: ListOptions): Promise<WatcherInput<T>> {
    hooks.onList?.(opts);
    try {
      const list = await client.list<T>(ref, transformItem ? { ...opts, transformItem } : opts);
      hooks.onConnected?.();
      return { kind: "listed", list };
    } catch (error) {
      return { kind: "listFailed", error };
    }
  }

  async function perform(action: WatcherAction): Promise<WatcherInput<T>> {
    switch (action.kind) {
      case "list": {
        let page: Promise<WatcherInput<T>>;
        if (prefetch !== undefined && action.continue !== undefined && prefetch.token === action.continue) {
          page = prefetch.page;
          prefetch = undefined;
        } else {
          await dropPrefetch();
          page = listPage({
            ...selectors,
            limit: pageSize,
            ...definedOnly({ continue: action.continue }),
          });
        }
        const input = await page;
        const token = input.kind === "listed" ? input.list.metadata.continue : undefined;
        if (token && !signal?.aborted) {
          const cancel = new AbortController();
          const opts: ListOptions = {
            ...selectors,
            signal: signal ? AbortSignal.any([signal, cancel.signal]) : cancel.signal,
            limit: pageSize,
            continue: token,
          };
          prefetch = { token, page: listPage(opts), cancel };
        }
        return input;
      }
      case "watch": {
        const timeoutSeconds = drawSeconds(action.sendInitialEvents ? streamingTimeouts : watchTimeouts);
        const opts: RawWatchOptions = {
          ...selectors,
          allowWatchBookmarks: true,
          timeoutSeconds,
          ...(action.resourceVersion === undefined ? {} : { resourceVersion: action.resourceVersion }),
          ...(action.sendInitialEvents
            ? { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" }
            : {}),
        };
        hooks.onWatch?.(opts);
        logger.debug("watch", { resource: ref.plural, resourceVersion: action.resourceVersion ?? "" });
        try {
          const body = await client.watch(ref, opts);
          const longMs = timeoutSeconds * 1000 + marginMs;
          const idleMs = options.idleTimeoutMs ?? heartbeat.opened(clock.now(), longMs);
          const decoder = new WatchEventDecoder<T>(definedOnly({ maxLineBytes: options.maxLineBytes }));
          stream = new WatchStreamReader(body, decoder, { clock, idleMs, deadlineMs: longMs });
          if (signal?.aborted) await stream.close();
          hooks.onConnected?.();
          return { kind: "watchOpened" };
        } catch (error) {
          return { kind: "watchFailed", error };
        }
      }
      case "read": {
        if (!stream) return { kind: "streamFailed", error: new Error("Watcher bug: no open stream") };
        const input = await stream.next();
        if (input.kind === "event") {
          hooks.onWireEvent?.(input.event.type);
          heartbeat.observe(input.event, clock.now());
        } else if (input.kind === "streamFailed" && input.error instanceof WatchIdleTimeoutError) {
          const notice = heartbeat.silent();
          if (notice) logger.info(notice, { resource: ref.plural });
        }
        return input;
      }
    }
  }

  try {
    while (!signal?.aborted) {
      const input = await perform(nextAction(state));
      if (signal?.aborted) return;
      const transition = step(state, input);
      state = transition.state;
      if (stream && state.phase.kind === "watching" && transition.events.some((e) => e.type === "initDone")) {
        // The streaming list's watch has its initial state through: from now on it is replaced as often
        // as a short watch, by the client, since the server would keep it for minutes.
        stream.endAt(clock.now() + drawSeconds(watchTimeouts) * 1000);
      }
      if (transition.notice) logger.info(transition.notice, { resource: ref.plural });
      if (stream && !streamIsOpen(state)) {
        const closing = stream;
        stream = undefined;
        await closing.close();
      }
      for (const event of transition.events) yield event;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    await dropPrefetch();
    await stream?.close();
  }
}

function definedOnly<O extends Record<string, unknown>>(o: O): { [K in keyof O]?: Exclude<O[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof O]?: Exclude<O[K], undefined> };
}
