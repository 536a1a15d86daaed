import type { EventSink } from "../events/recorder.ts";
import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject, ResourceRef } from "../resources/object.ts";
import {
  addFinalizer,
  type FinalizerClient,
  type FinalizerOptions,
  hasFinalizer,
  isTerminating,
  removeFinalizer,
} from "./finalizers.ts";
import type { Action } from "./types.ts";

/** What {@linkcode finalizer} calls: `apply` while the object lives, `cleanup` once its deletion is asked. */
export interface FinalizerHandlers<T extends KubeObject> {
  /**
   * The normal reconcile, called with the object as stored once it carries the finalizer (so a deletion
   * asked for from now on waits for `cleanup`).
   */
  apply(object: DeepReadonly<T> | T): Promise<Action | void>;
  /**
   * Releases what the object holds outside its own fields (external resources, objects in other
   * namespaces that owner references cannot reach). Called while the object is terminating and carries
   * the finalizer; the finalizer is removed only after it resolves, so a failure is retried with the
   * controller's backoff and the object stays until it succeeds. Must be idempotent: it runs again if the
   * process stops between the clean-up and the removal.
   *
   * A clean-up that has started but must wait for something (a Namespace being emptied, an external
   * deletion in progress) resolves with an {@linkcode Action} that asks to come back (`requeue: true` or
   * `requeueAfterMs > 0`): the finalizer stays, no event is recorded and `finalizer` resolves with that
   * Action. Waiting is not a failure, so it need not throw (which would record a Warning each time).
   */
  cleanup(object: DeepReadonly<T> | T): Promise<Action | void>;
}

/** Options of {@linkcode finalizer}. */
export interface FinalizerFlowOptions extends FinalizerOptions {
  /**
   * Receives a Warning `CleanupFailed` event (with the error's message) when `cleanup` throws, and a
   * Normal `CleanedUp` event once the finalizer is removed.
   * @default {no events}
   */
  readonly recorder?: EventSink | undefined;
}

/**
 * The finalizer pattern in one call, so a reconciler writes only its clean-up (kube-rs' `finalizer`):
 *
 * - alive, without the finalizer: adds it (a conditional merge patch), then calls `apply` with the
 *   object as stored;
 * - alive, with it: calls `apply`;
 * - terminating, with it: calls `cleanup`, then removes the finalizer (the server deletes the object
 *   once no finalizer is left) and resolves with nothing to requeue; if `cleanup` throws, records a
 *   Warning event and rethrows, so the controller retries with backoff and the finalizer stays; if it
 *   resolves with a requeue (not done yet), keeps the finalizer and resolves with that requeue;
 * - terminating, without it: nothing left to do.
 *
 * Resolves with what `apply` returned (a requeue, or nothing), or with the requeue of a clean-up that
 * waits.
 *
 * @example A ConfigMap that stands for a bucket elsewhere, released before the ConfigMap goes
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONFIG_MAPS, finalizer } from "@kubeloop/kubeloop";
 * import { FakeApi, FakeEventRecorder } from "@kubeloop/kubeloop/testing";
 *
 * const api = new FakeApi(); // a KubeClient in a program
 * const recorder = new FakeEventRecorder(); // an EventRecorder in a program
 * const buckets = new Set<string>(); // what lives outside the cluster
 * async function reconcile(name: string): Promise<void> {
 *   const cm = api.object(CONFIG_MAPS, name, "default"); // a controller reads its informer's cache
 *   if (cm === undefined) return;
 *   await finalizer(api, CONFIG_MAPS, cm, "example.com/bucket", {
 *     apply: async (live) => void buckets.add(live.metadata.name!),
 *     cleanup: async (terminating) => void buckets.delete(terminating.metadata.name!),
 *   }, { recorder, fieldManager: "bucket-controller" });
 * }
 *
 * api.seed(CONFIG_MAPS, { metadata: { name: "a", namespace: "default" } });
 * await reconcile("a"); // adds the finalizer, then applies
 * assert.deepEqual([...buckets], ["a"]);
 * await api.delete(CONFIG_MAPS, "a"); // held by the finalizer
 * await reconcile("a"); // cleans up, then removes the finalizer: the ConfigMap is deleted
 * assert.deepEqual([...buckets], []);
 * assert.equal(api.object(CONFIG_MAPS, "a", "default"), undefined);
 * assert.deepEqual(recorder.reasons(), ["CleanedUp"]);
 * ```
 */
export async function finalizer<T extends KubeObject>(
  client: FinalizerClient,
  ref: ResourceRef<T>,
  obj: NoInfer<DeepReadonly<T> | T>,
  name: string,
  handlers: FinalizerHandlers<T>,
  options: FinalizerFlowOptions = {},
): Promise<Action | void> {
  const { recorder, ...writeOptions } = options;
  if (isTerminating(obj)) {
    if (!hasFinalizer(obj, name)) return;
    let waiting: Action | void;
    try {
      waiting = await handlers.cleanup(obj);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      recorder?.record(obj, { type: "Warning", reason: "CleanupFailed", note: `Finalizer ${name}: ${why}` });
      throw error;
    }
    if (waiting && (waiting.requeue === true || (waiting.requeueAfterMs ?? 0) > 0)) return waiting;
    await removeFinalizer(client, ref, obj, name, writeOptions);
    recorder?.record(obj, { type: "Normal", reason: "CleanedUp", note: `Finalizer ${name} removed` });
    return;
  }
  const current = hasFinalizer(obj, name) ? obj : await addFinalizer(client, ref, obj, name, writeOptions);
  // Deleted between our read and the write (addFinalizer re-read it on a conflict): clean up instead.
  if (isTerminating(current)) return await finalizer(client, ref, current, name, handlers, options);
  return await handlers.apply(current);
}
