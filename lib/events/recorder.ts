import type { KubeObject } from "../client/types.ts";
import { type Logger, noopLogger } from "../observe/types.ts";
import { type Clock, systemClock, type Timer } from "../time/clock.ts";
import { formatMicroTime } from "./micro_time.ts";
import { SpamFilter, type SpamFilterOptions } from "./spam_filter.ts";
import { type EventsClient, eventsRef, type EventType, type EventV1, type ObjectReference } from "./types.ts";

/** What happened, passed to {@linkcode EventRecorder.record}. */
export interface EventInfo {
  /** Normal or Warning. */
  type: EventType;
  /** Short CamelCase machine-readable reason, e.g. "Synced". */
  reason: string;
  /** Human-readable message; truncated to 1 KiB as the API requires. */
  note: string;
  /** What the controller did or failed to do. @default the reason */
  action?: string;
  /** A second object involved, if any. */
  related?: ObjectReference;
}

/** Options of {@linkcode EventRecorder}. */
export interface EventRecorderOptions {
  /** Written to `reportingController`, e.g. "sample-controller". */
  reportingController: string;
  /** Written to `reportingInstance`. @default `${reportingController}-${Deno.hostname()}` */
  reportingInstance?: string;
  /** Repeats within this window of the last occurrence join a series. @default 360_000 (6 minutes) */
  seriesWindowMs?: number;
  /** Minimum time between two writes of one series. @default 30_000 */
  seriesPatchIntervalMs?: number;
  /** Per-object token bucket applied to new Events. @default burst 25, one token per 5 minutes */
  spamFilter?: SpamFilterOptions;
  /** Writes waiting beyond this are dropped with a warning. @default 1000 */
  maxPending?: number;
  /** Time source. @default systemClock */
  clock?: Clock;
  /** Structured logs. @default noopLogger */
  logger?: Logger;
}

interface Series {
  key: string;
  namespace: string;
  /** Server name once created; undefined while the create is pending or after it failed. */
  name: string | undefined;
  event: EventV1;
  count: number;
  lastObserved: number;
  lastWrite: number;
  /** Count last written to the server. */
  written: number;
  timer: Timer | undefined;
}

const maxNoteBytes = 1024;

/**
 * Records `events.k8s.io/v1` Events, fire and forget: `record()` never throws into the caller and never
 * waits; writes go out one at a time in the background, and failures are logged.
 *
 * Repeats of the same event (same object, reason, type, action and note) within the series window are
 * not written as new Events: the existing Event is merge-patched with `series { count, lastObservedTime }`,
 * at most once per patch interval per series, always carrying the latest count. New Events pass a token
 * bucket per involved object; excess ones are dropped with a debug log. Series updates are exempt, since
 * they are already throttled.
 *
 * Owns timers: call `flush()` to wait for pending writes and `[Symbol.asyncDispose]()` when done.
 */
export class EventRecorder {
  #client: EventsClient;
  #controller: string;
  #instance: string;
  #windowMs: number;
  #intervalMs: number;
  #maxPending: number;
  #clock: Clock;
  #logger: Logger;
  #spam: SpamFilter;
  #series = new Map<string, Series>();
  #tail: Promise<void> = Promise.resolve();
  #pending = 0;
  #seq = 0;
  #disposed = false;

  /** Creates the instance; see the options type for defaults. */
  constructor(client: EventsClient, options: EventRecorderOptions) {
    if (!options.reportingController) throw new TypeError("EventRecorder needs a reportingController");
    this.#client = client;
    this.#controller = options.reportingController;
    this.#instance = (options.reportingInstance ?? `${options.reportingController}-${hostname()}`).slice(
      0,
      128,
    );
    this.#windowMs = options.seriesWindowMs ?? 360_000;
    this.#intervalMs = options.seriesPatchIntervalMs ?? 30_000;
    this.#maxPending = options.maxPending ?? 1000;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
    this.#spam = new SpamFilter(this.#clock, options.spamFilter);
  }

  /** Records an event about `regarding` (an object or a reference). Never throws, never waits. */
  record(regarding: KubeObject | ObjectReference, info: EventInfo): void {
    if (this.#disposed) {
      this.#logger.warn("Event recorded after dispose was dropped", { reason: info.reason });
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
    const event: EventV1 = {
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
    this.#enqueue(() => this.#create(series, event));
  }

  /** Sends pending series updates now and resolves once every queued write finished. */
  async flush(): Promise<void> {
    for (const s of this.#series.values()) {
      if (s.timer) {
        s.timer.cancel();
        s.timer = undefined;
        this.#enqueue(() => this.#patch(s));
      }
    }
    while (this.#pending > 0) await this.#tail;
  }

  /** Flushes, then stops accepting events and forgets all series. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.flush();
    this.#disposed = true;
    this.#series.clear();
  }

  #expire(now: number): void {
    for (const [key, s] of this.#series) {
      if (now - s.lastObserved >= this.#windowMs && !s.timer) this.#series.delete(key);
    }
  }

  #schedulePatch(s: Series, now: number): void {
    if (s.timer) return;
    const delay = Math.max(0, s.lastWrite + this.#intervalMs - now);
    s.timer = this.#clock.setTimer(() => {
      s.timer = undefined;
      this.#enqueue(() => this.#patch(s));
    }, delay);
  }

  #enqueue(job: () => Promise<void>): void {
    if (this.#pending >= this.#maxPending) {
      this.#logger.warn("Event dropped: too many pending writes", { maxPending: this.#maxPending });
      return;
    }
    this.#pending++;
    this.#tail = this.#tail.then(job).catch((error) => {
      this.#logger.error("Event writer failed", { error: String(error) });
    }).finally(() => void this.#pending--);
  }

  async #create(s: Series, event: EventV1): Promise<void> {
    try {
      const created = await this.#client.create(eventsRef, event, { namespace: s.namespace });
      s.name = created.metadata.name ?? event.metadata.name;
    } catch (error) {
      this.#logger.warn("Cannot write event", { ...describe(s.event), error: String(error) });
      if (this.#series.get(s.key) === s && !s.timer) this.#series.delete(s.key);
    }
  }

  async #patch(s: Series): Promise<void> {
    if (s.count === s.written) return;
    const count = s.count;
    const series = { count, lastObservedTime: formatMicroTime(s.lastObserved) };
    s.lastWrite = this.#clock.now();
    try {
      if (s.name === undefined) throw new Error("the first occurrence was never written");
      await this.#client.patch(eventsRef, s.name, { series }, { type: "merge", namespace: s.namespace });
      s.written = count;
    } catch (error) {
      // The Event expired or was deleted (or never existed): write it again, carrying the series.
      const fresh: EventV1 = {
        ...s.event,
        metadata: { name: `${s.event.metadata.name}.${(this.#seq++).toString(16)}`, namespace: s.namespace },
        series,
      };
      this.#logger.debug("Cannot patch event series; creating it anew", {
        ...describe(s.event),
        error: String(error),
      });
      s.event = fresh;
      try {
        const created = await this.#client.create(eventsRef, fresh, { namespace: s.namespace });
        s.name = created.metadata.name ?? fresh.metadata.name;
        s.written = count;
      } catch (error) {
        this.#logger.warn("Cannot write event series", { ...describe(s.event), error: String(error) });
      }
    }
  }
}

function toReference(obj: KubeObject | ObjectReference): ObjectReference {
  if (!("metadata" in obj) || typeof obj.metadata !== "object" || obj.metadata === null) {
    return { ...(obj as ObjectReference) };
  }
  const o = obj as KubeObject;
  const ref: ObjectReference = {};
  if (o.apiVersion) ref.apiVersion = o.apiVersion;
  if (o.kind) ref.kind = o.kind;
  if (o.metadata.name) ref.name = o.metadata.name;
  if (o.metadata.namespace) ref.namespace = o.metadata.namespace;
  if (o.metadata.uid) ref.uid = o.metadata.uid;
  if (o.metadata.resourceVersion) ref.resourceVersion = o.metadata.resourceVersion;
  return ref;
}

function describe(e: EventV1): Record<string, unknown> {
  const r = e.regarding;
  return { object: `${r.kind}/${r.namespace ?? ""}/${r.name}`, reason: e.reason };
}

function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return text;
  return new TextDecoder().decode(bytes.slice(0, maxBytes - 3)).replace(/\uFFFD$/, "") + "...";
}

function hostname(): string {
  try {
    return Deno.hostname();
  } catch {
    // Without --allow-sys there is no hostname; a random suffix still tells instances apart.
    return crypto.randomUUID().slice(0, 8);
  }
}
