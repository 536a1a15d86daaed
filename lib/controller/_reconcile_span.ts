import { inSpan, tracingEnabled } from "../trace/tracing.ts";
import type { ReconcileReason } from "./reconcile_reason.ts";
import type { Action } from "./types.ts";

/** What one reconcile's span carries besides its reason. */
export interface ReconcileSpanInfo {
  readonly controller: string;
  readonly key: string;
  readonly retries: number;
  /** Seconds between the first trigger (or the requeue's due time) and the start of the reconcile. */
  readonly queueWaitSeconds: number;
}

/**
 * Runs `run` inside the span `reconcile <controller>` while tracing is on: a root span (a reconcile starts
 * its own trace; every API request it makes is a child) linked to the spans of the watch events, lists or
 * resyncs that queued it, with the key, the first trigger (kind, resource, key and resourceVersion of the
 * object that changed), how many triggers collapsed into this run, the time the key waited in the queue,
 * the retries so far and the result. With tracing off it is `run()`.
 */
export function traceReconcile(
  info: ReconcileSpanInfo,
  reason: ReconcileReason,
  run: () => Promise<Action | void>,
): Promise<Action | void> {
  if (!tracingEnabled()) return run();
  const t = reason.first;
  const object = "resource" in t ? t : undefined;
  return inSpan(`reconcile ${info.controller}`, {
    root: true,
    links: reason.links,
    attributes: {
      "kubeloop.controller": info.controller,
      "kubeloop.reconcile.key": info.key,
      "kubeloop.reconcile.retries": info.retries,
      "kubeloop.reconcile.queue_wait_seconds": info.queueWaitSeconds,
      "kubeloop.trigger.type": t.type,
      "kubeloop.trigger.count": reason.count,
      "kubeloop.trigger.resource": object?.resource,
      "kubeloop.trigger.key": object?.key,
      "kubeloop.trigger.resource_version": object?.resourceVersion,
    },
  }, async (span) => {
    try {
      const action = await run();
      span.setAttribute("kubeloop.reconcile.result", resultOf(action));
      return action;
    } catch (error) {
      span.setAttribute("kubeloop.reconcile.result", "error");
      throw error;
    }
  });
}

function resultOf(action: Action | void): string {
  if (action?.requeueAfterMs !== undefined && action.requeueAfterMs > 0) return "requeue_after";
  return action?.requeue ? "requeue" : "success";
}
