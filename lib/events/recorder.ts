import { hostnameOr } from "../_internal/hostname.ts";
import { withTimeout } from "../_internal/with_timeout.ts";
import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject } from "../resources/object.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import { formatMicroTime } from "../time/micro_time.ts";
import { toReference, truncateUtf8 } from "./event_object.ts";
import { type Series, SeriesWriter } from "./series.ts";
import { SpamFilter, type SpamFilterOptions } from "./spam_filter.ts";
import type { Event, EventsClient, EventType, ObjectReference } from "./types.ts";
import { WriteQueue } from "./write_queue.ts";

/** What happened, passed to {@linkcode EventRecorder.record}. */
export interface EventInfo {
  /** Normal or Warning. */
  type: EventType;
  /** Short CamelCase machine-readable reason, e.g. "Synced". */
  reason: string;
  /** Human-readable message; truncated to 1 KiB as the API requires. */
  note: string;
  /**
   * What the controller did or failed to do.
   * @default {the reason}
   */
  action?: string;
  /** A second object involved, if any. */
  related?: ObjectReference;
}

/**
 * Where a reconciler records events: {@linkcode EventRecorder} writes them to the API server, lib/testing's
 * `FakeEventRecorder` keeps them for assertions. Type your reconciler's dependency with this.
 */
export interface EventSink {
  /** Records one occurrence about `regarding` (an object, or a reference to one); never throws or waits. */
  record(regarding: DeepReadonly<KubeObject> | ObjectReference, info: EventInfo): void;
}

/** Options of {@linkcode EventRecorder}. */
export interface EventRecorderOptions {
  /** Written to `reportingController`, e.g. "sample-controller". */
  reportingController: string;
  /**
   * Written to `reportingInstance`.
   * @default {<reportingController>-<hostname>}
   */
  reportingInstance?: string;
  /**
   * Repeats within this window of the last occurrence join a series.
   * @default {360_000 (6 minutes)}
   */
  seriesWindowMs?: number;
  /**
   * Minimum time between two writes of one series.
   * @default {30_000}
   */
  seriesPatchIntervalMs?: number;
  /**
   * Per-object token bucket applied to new Events.
   * @default {burst 25, one token per 5 minutes}
   */
  spamFilter?: SpamFilterOptions;
  /**
   * Writes waiting beyond this are dropped with a warning.
   * @default {1000}
   */
  maxPending?: number;
  /**
   * How long `flush()` and dispose wait for pending writes before abandoning them (aborting the
   * request in flight). Keeps shutdown within the pod's termination grace period when the API server is
   * unreachable.
   * @default {5_000}
   */
  flushTimeoutMs?: number;
  /**
   * Time source.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Structured logs.
   * @default {noopLogger}
   */
  logger?: Logger;
}

/** Options of {@linkcode EventRecorder.flush}. */
export interface FlushOptions {
  /**
   * Abandons the pending writes when it aborts.
   * @default {never}
   */
  signal?: AbortSignal | undefined;
  /**
   * Abandons them after this long.
   * @default {the recorder's `flushTimeoutMs`}
   */
  timeoutMs?: number;
}

const maxNoteBytes = 1024;

/**
 * Records `events.k8s.io/v1` Events, fire and forget: `record()` never throws into the caller and never
 * waits; writes go out one at a time in the background, and failures are logged.
 *
 * An Event is written to the namespace of the object it is about; Events about cluster-scoped objects
 * (Nodes, Namespaces, cluster-scoped custom resources) go to "default", as client-go's do. The recorder's
 * client needs `create` and `patch` on `events.k8s.io` `events` there (a ClusterRole, or a Role in each
 * namespace it reports on); a refused write is logged at warn level by the recorder's logger.
 *
 * Repeats of the same event (same object, reason, type, action and note) within the series window are
 * not written as new Events: the existing Event is merge-patched with `series { count, lastObservedTime }`,
 * at most once per patch interval per series, always carrying the latest count. New Events pass a token
 * bucket per involved object; excess ones are dropped with a debug log. Series updates are exempt, since
 * they are already throttled.
 *
 * Owns timers: call `flush()` to wait for pending writes and `[Symbol.asyncDispose]()` when done. Both
 * are bounded (`flushTimeoutMs`); writes still pending then are abandoned, not retried. From the start
 * of dispose on, `record()` drops events (debug log) and no timer is left behind.
 *
 * @example Record an Event about an object
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONFIG_MAPS, EventRecorder, EVENTS, KubeClient, loadConfig } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * const namespace = client.namespace;
 * const name = `example-${crypto.randomUUID().slice(0, 8)}`;
 * const cm = await client.create(CONFIG_MAPS, { metadata: { name, namespace } });
 * await using recorder = new EventRecorder(client, { reportingController: "example.com/widgets" });
 * recorder.record(cm, { type: "Normal", reason: "Synced", note: "Widgets are up to date" }); // never waits
 * await recorder.flush(); // waits for the background write (disposal does too)
 * const events = await client.list(EVENTS, { namespace, fieldSelector: `regarding.name=${name}` });
 * assert.equal(events.items[0]?.reason, "Synced");
 * await client.delete(EVENTS, events.items[0]!.metadata.name!, { namespace });
 * await client.delete(CONFIG_MAPS, name, { namespace });
 * ```
 */
export class EventRecorder implements EventSink {
  #controller: string;
  #instance: string;
  #windowMs: number;
  #intervalMs: number;
  #flushTimeoutMs: number;
  #clock: Clock;
  #logger: Logger;
  #spam: SpamFilter;
  #series = new Map<string, Series>();
  #writes: WriteQueue;
  #writer: SeriesWriter;
  #seq = 0;
  #closing = false;

  /** Creates the instance; see the options type for defaults. */
  constructor(client: EventsClient, options: EventRecorderOptions) {
    if (!options.reportingController) throw new TypeError("EventRecorder needs a reportingController");
    this.#controller = options.reportingController;
    // Without --allow-sys there is no hostname; a random suffix still tells instances apart.
    const host = hostnameOr(crypto.randomUUID().slice(0, 8));
    this.#instance = (options.reportingInstance ?? `${options.reportingController}-${host}`).slice(0, 128);
    this.#windowMs = options.seriesWindowMs ?? 360_000;
    this.#intervalMs = options.seriesPatchIntervalMs ?? 30_000;
    this.#flushTimeoutMs = options.flushTimeoutMs ?? 5_000;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
    this.#writes = new WriteQueue(options.maxPending ?? 1000, this.#logger);
    this.#writer = new SeriesWriter(client, { clock: this.#clock, logger: this.#logger });
    this.#spam = new SpamFilter(this.#clock, options.spamFilter);
  }

  /** Records an event about `regarding` (an object or a reference). Never throws, never waits. */
  record(regarding: DeepReadonly<KubeObject> | ObjectReference, info: EventInfo): void {
    if (this.#closing) {
      this.#logger.debug("Event recorded during or after dispose was dropped", { reason: info.reason });
      return;
    }
    const ref = toReference(regarding);
    const action = info.action ?? info.reason;
    const note = truncateUtf8(info.note, maxNoteBytes);
    const key = JSON.stringify([
      ref.uid,
      ref.kind,
      ref.namespace,
      ref.name,
      info.reason,
      info.type,
      action,
      note,
    ]);
    const now = this.#clock.now();
    this.#expire(now);
    const existing = this.#series.get(key);
    if (existing) {
      existing.count++;
      existing.lastObserved = now;
      this.#schedulePatch(existing, now);
      return;
    }
    const objectKey = ref.uid ?? `${ref.kind}/${ref.namespace}/${ref.name}`;
    if (!this.#spam.allow(objectKey)) {
      this.#logger.debug("Event dropped by the spam filter", { object: objectKey, reason: info.reason });
      return;
    }
    const namespace = ref.namespace || "default";
    const event: Event = {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: {
        name: `${ref.name ?? "event"}.${now.toString(16)}${(this.#seq++).toString(16)}`,
        namespace,
      },
      eventTime: formatMicroTime(now),
      reportingController: this.#controller,
      reportingInstance: this.#instance,
      action,
      reason: info.reason,
      regarding: ref,
      note,
      type: info.type,
      ...(info.related ? { related: info.related } : {}),
    };
    const series: Series = {
      key,
      namespace,
      name: undefined,
      event,
      count: 1,
      lastObserved: now,
      lastWrite: now,
      written: 1,
      timer: undefined,
    };
    this.#series.set(key, series);
    this.#writes.push(async (signal) => {
      if (await this.#writer.create(series, signal)) return;
      // A failed first write leaves no broken series behind, unless repeats already wait to be written.
      if (this.#series.get(key) === series && !series.timer) this.#series.delete(key);
    });
  }

  /**
   * Sends pending series updates now and resolves once every queued write finished, or once the
   * timeout passes or `signal` aborts: then the writes still pending are abandoned (the request in
   * flight is aborted) and it resolves anyway. Never rejects.
   */
  async flush(options: FlushOptions = {}): Promise<void> {
    for (const s of this.#series.values()) {
      if (!s.timer) continue;
      s.timer.cancel();
      s.timer = undefined;
      this.#queuePatch(s);
    }
    await withTimeout((signal) => this.#writes.drain(signal), {
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? this.#flushTimeoutMs,
      clock: this.#clock,
      what: "Event flush",
    });
  }

  /**
   * Stops accepting events at once, flushes (bounded like `flush()`; an aborted `signal` abandons the
   * pending writes without sending them), then cancels every timer and forgets all series. Closing first
   * matters: an event recorded while the flush runs would otherwise arm a series timer that fires after
   * dispose. Closing again does nothing more.
   */
  async close(options: FlushOptions = {}): Promise<void> {
    this.#closing = true;
    await this.flush(options);
    for (const s of this.#series.values()) s.timer?.cancel();
    this.#series.clear();
  }

  /** Same as `close()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #expire(now: number): void {
    for (const [key, s] of this.#series) {
      if (now - s.lastObserved >= this.#windowMs && !s.timer) this.#series.delete(key);
    }
  }

  #schedulePatch(s: Series, now: number): void {
    if (s.timer || this.#closing) return;
    const delay = Math.max(0, s.lastWrite + this.#intervalMs - now);
    s.timer = this.#clock.setTimer(() => {
      s.timer = undefined;
      this.#queuePatch(s);
    }, delay);
  }

  #queuePatch(s: Series): void {
    this.#writes.push(async (signal) => {
      if (await this.#writer.patch(s, signal) === "done") return;
      // Retry while the series is alive; past its window the repeats are not worth another request.
      const now = this.#clock.now();
      if (now - s.lastObserved < this.#windowMs) this.#schedulePatch(s, now);
    });
  }
}
