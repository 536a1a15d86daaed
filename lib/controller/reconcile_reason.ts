import type { SpanContext } from "../trace/tracing.ts";

/**
 * One thing that queued a key: a change an informer delivered (its kind — "add", "update" or "delete" from
 * a watch event, "initial list", "relist" or "resync" — with the resource, the key and resourceVersion of
 * the object that changed, which may be another object than the reconciled one, e.g. an owned Deployment),
 * a requeue the last reconcile asked for or earned by failing, or an explicit `Controller.enqueue`.
 */
export type ReconcileTrigger =
  | {
    readonly type: "add" | "update" | "delete" | "initial list" | "relist" | "resync";
    /** "group/version/plural" of the object that changed. */
    readonly resource: string;
    /** Its key, "namespace/name" or "name". */
    readonly key: string;
    /** Its resourceVersion after the change. */
    readonly resourceVersion: string | undefined;
  }
  | { readonly type: "requeue after error" | "requeue" }
  | { readonly type: "requeueAfter"; readonly afterMs: number }
  | { readonly type: "enqueue" };

/** Why a reconcile ran: the first trigger since the key's last reconcile, and how many collapsed into it. */
export interface ReconcileReason {
  /** The earliest trigger. */
  readonly first: ReconcileTrigger;
  /** How many triggers the queue collapsed into this one reconcile (at least 1). */
  readonly count: number;
  /** Clock time of the first trigger (for a requeue: when it came due), in ms. */
  readonly atMs: number;
  /** The spans of the watch events, lists and resyncs among the triggers (at most 16), to link to. */
  readonly links: readonly SpanContext[];
}

/** The reason of a reconcile as one short phrase for its log line, e.g. `update of apps/v1/deployments ns/x`. */
export function describeReason(reason: ReconcileReason): string {
  const t = reason.first;
  let text: string;
  switch (t.type) {
    case "requeueAfter":
      text = `requeueAfter ${t.afterMs} ms`;
      break;
    case "requeue after error":
    case "requeue":
    case "enqueue":
      text = t.type;
      break;
    default:
      text = `${t.type} of ${t.resource} ${t.key}` +
        (t.resourceVersion === undefined ? "" : ` (resourceVersion ${t.resourceVersion})`);
  }
  return reason.count > 1 ? `${text}, first of ${reason.count} triggers` : text;
}

const MAX_LINKS = 16;

interface Pending {
  first: ReconcileTrigger;
  atMs: number;
  count: number;
  links: SpanContext[];
}

/**
 * Keeps, per queue key, what queued it since its last reconcile. The queue collapses repeated adds of a
 * key into one; this book remembers the first and counts them. Requeues are due later (the queue holds
 * them until then), so they are noted with their due time and count only once due: a requeue still
 * waiting when a watch event runs the key is kept for the run it causes later.
 */
export class ReasonBook {
  readonly #triggered = new Map<string, Pending>();
  readonly #scheduled = new Map<string, { trigger: ReconcileTrigger; dueMs: number }>();

  /** A trigger that added `key` to the queue now (at `nowMs`). */
  note(key: string, trigger: ReconcileTrigger, nowMs: number, link?: SpanContext): void {
    const pending = this.#triggered.get(key);
    if (pending === undefined) {
      this.#triggered.set(key, { first: trigger, atMs: nowMs, count: 1, links: link ? [link] : [] });
      return;
    }
    pending.count++;
    if (link && pending.links.length < MAX_LINKS) pending.links.push(link);
  }

  /** Whether something queued `key` since its last reconcile started. */
  pending(key: string): boolean {
    return this.#triggered.has(key);
  }

  /**
   * A requeue of `key` due at `dueMs` (the queue's due time: it keeps the earliest of several schedules,
   * and so does this book).
   */
  schedule(key: string, trigger: ReconcileTrigger, dueMs: number): void {
    const current = this.#scheduled.get(key);
    if (current === undefined || dueMs < current.dueMs) this.#scheduled.set(key, { trigger, dueMs });
  }

  /** Moves every scheduled requeue of one of `types` to `nowMs` if later (the queue retried them early). */
  dueNow(types: readonly ReconcileTrigger["type"][], nowMs: number): void {
    for (const entry of this.#scheduled.values()) {
      if (types.includes(entry.trigger.type)) entry.dueMs = Math.min(entry.dueMs, nowMs);
    }
  }

  /**
   * What queued `key`, as its reconcile starts at `nowMs`, and forgets it. `stillScheduled` says whether
   * the queue still holds a requeue of the key for later: then that requeue is not among the reasons and
   * is kept for the run it will cause; otherwise a noted requeue has been added, and counts.
   */
  take(key: string, nowMs: number, stillScheduled: boolean): ReconcileReason {
    const pending = this.#triggered.get(key);
    this.#triggered.delete(key);
    const scheduled = this.#scheduled.get(key);
    const fired = scheduled !== undefined && !stillScheduled ? scheduled : undefined;
    if (fired) this.#scheduled.delete(key);
    if (pending === undefined) {
      return fired
        ? { first: fired.trigger, count: 1, atMs: fired.dueMs, links: [] }
        : { first: { type: "enqueue" }, count: 1, atMs: nowMs, links: [] };
    }
    if (fired === undefined) return pending;
    const requeueFirst = fired.dueMs < pending.atMs;
    return {
      first: requeueFirst ? fired.trigger : pending.first,
      atMs: requeueFirst ? fired.dueMs : pending.atMs,
      count: pending.count + 1,
      links: pending.links,
    };
  }
}
