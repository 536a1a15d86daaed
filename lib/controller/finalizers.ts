import { ApiError } from "../client/api_error.ts";
import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { ResourceClient } from "../client/resource_client.ts";
import type { KubeObject, ResourceRef } from "../resources/object.ts";

/** What the finalizer helpers call: KubeClient or lib/testing's FakeApi. */
export type FinalizerClient = Pick<ResourceClient, "get" | "patch">;

/** Options of {@linkcode addFinalizer} and {@linkcode removeFinalizer}. */
export interface FinalizerOptions {
  /**
   * Attempts after a 409 Conflict (the object changed since it was read): each re-reads the object and
   * recomputes the list, so a finalizer another client added meanwhile is never dropped.
   * @default {3}
   */
  readonly conflictRetries?: number;
  /**
   * Recorded in managedFields.
   * @default {the server's default for merge patches}
   */
  readonly fieldManager?: string;
  /**
   * Aborts the requests.
   * @default {never aborted}
   */
  readonly signal?: AbortSignal | undefined;
}

/** True when `obj` lists `finalizer`. */
export function hasFinalizer(obj: DeepReadonly<KubeObject>, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}

/** True when deletion was requested: `deletionTimestamp` is set (finalizers may still hold the object). */
export function isTerminating(obj: DeepReadonly<KubeObject>): boolean {
  return typeof obj.metadata.deletionTimestamp === "string" && obj.metadata.deletionTimestamp !== "";
}

/**
 * How long `obj` has been terminating at `nowMs` (ms since `deletionTimestamp`), or undefined when it is not.
 * An object terminating for long while finalizers remain is "stuck": its controller's cleanup keeps failing
 * or its controller is gone. The Controller logs and counts such objects (see `stuckTerminatingAfterMs`).
 */
export function terminatingForMs(obj: DeepReadonly<KubeObject>, nowMs: number): number | undefined {
  if (!isTerminating(obj)) return undefined;
  const since = Date.parse(obj.metadata.deletionTimestamp ?? "");
  return Number.isNaN(since) ? undefined : Math.max(0, nowMs - since);
}

/**
 * Adds `finalizer` to `obj` (a `ref` object) unless it is there already or the object is being deleted
 * (the server refuses new finalizers then). Writes a JSON merge patch of `metadata.finalizers` carrying
 * `metadata.resourceVersion`, so it applies only to the version read: on 409 Conflict the object is read
 * again and the list recomputed, up to `conflictRetries` times. Resolves with the object as stored (or `obj`
 * when nothing was written).
 *
 * @example Hold an object until its cleanup is done
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   addFinalizer,
 *   ApiError,
 *   CONFIG_MAPS,
 *   isTerminating,
 *   KubeClient,
 *   loadConfig,
 *   removeFinalizer,
 * } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * const namespace = client.namespace;
 * const name = `example-${crypto.randomUUID().slice(0, 8)}`;
 * const created = await client.create(CONFIG_MAPS, { metadata: { name, namespace } });
 * await addFinalizer(client, CONFIG_MAPS, created, "example.com/cleanup"); // in reconcile, before acting
 * await client.delete(CONFIG_MAPS, name, { namespace });
 * const terminating = await client.get(CONFIG_MAPS, name, { namespace }); // held by the finalizer
 * assert.ok(isTerminating(terminating));
 * await removeFinalizer(client, CONFIG_MAPS, terminating, "example.com/cleanup"); // cleanup done: it goes
 * await assert.rejects(
 *   client.get(CONFIG_MAPS, name, { namespace }),
 *   (e) => e instanceof ApiError && e.isNotFound,
 * );
 * ```
 */
export async function addFinalizer<T extends KubeObject>(
  client: FinalizerClient,
  ref: ResourceRef<T>,
  obj: NoInfer<DeepReadonly<T> | T>,
  finalizer: string,
  options: FinalizerOptions = {},
): Promise<DeepReadonly<T> | T> {
  return await editFinalizers(client, ref, obj, options, (current) => {
    if (isTerminating(current) || hasFinalizer(current, finalizer)) return undefined;
    return [...current.metadata.finalizers ?? [], finalizer];
  });
}

/**
 * Removes `finalizer` from `obj` (after its cleanup is done), with the same optimistic concurrency as
 * {@linkcode addFinalizer}. Resolves with the object as stored (its final state, when this removed the last
 * finalizer of a terminating object: the server deletes it then), `obj` when it did not list the finalizer,
 * or undefined when the object was already gone.
 *
 * @example The deletion branch of a reconcile, on a FakeApi
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONFIG_MAPS, isTerminating, removeFinalizer } from "@kubeloop/kubeloop";
 * import { FakeApi } from "@kubeloop/kubeloop/testing";
 *
 * const api = new FakeApi();
 * api.seed(CONFIG_MAPS, {
 *   metadata: { name: "a", namespace: "default", finalizers: ["example.com/cleanup"] },
 * });
 * await api.delete(CONFIG_MAPS, "a"); // held by the finalizer
 * const current = await api.get(CONFIG_MAPS, "a");
 * if (isTerminating(current)) {
 *   // ... release what the object stood for, then let it go:
 *   await removeFinalizer(api, CONFIG_MAPS, current, "example.com/cleanup");
 * }
 * assert.equal(api.object(CONFIG_MAPS, "a", "default"), undefined); // its last finalizer gone: deleted
 * ```
 */
export async function removeFinalizer<T extends KubeObject>(
  client: FinalizerClient,
  ref: ResourceRef<T>,
  obj: NoInfer<DeepReadonly<T> | T>,
  finalizer: string,
  options: FinalizerOptions = {},
): Promise<DeepReadonly<T> | T | undefined> {
  try {
    return await editFinalizers(client, ref, obj, options, (current) => {
      if (!hasFinalizer(current, finalizer)) return undefined;
      return (current.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    });
  } catch (error) {
    if (error instanceof ApiError && error.isNotFound) return undefined;
    throw error;
  }
}

async function editFinalizers<T extends KubeObject>(
  client: FinalizerClient,
  ref: ResourceRef<T>,
  obj: DeepReadonly<T> | T,
  options: FinalizerOptions,
  change: (current: DeepReadonly<KubeObject>) => string[] | undefined,
): Promise<DeepReadonly<T> | T> {
  const { name, namespace } = obj.metadata;
  if (!name) throw new TypeError(`Cannot change finalizers of a ${ref.kind} without metadata.name`);
  const retries = options.conflictRetries ?? 3;
  const where = {
    ...(namespace ? { namespace } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  let current: DeepReadonly<T> | T = obj;
  for (let attempt = 0;; attempt++) {
    const finalizers = change(current as DeepReadonly<KubeObject>);
    if (!finalizers) return current;
    const patch = { metadata: { resourceVersion: current.metadata.resourceVersion, finalizers } };
    try {
      return await client.patch(ref, name, patch, {
        type: "merge",
        ...where,
        ...(options.fieldManager ? { fieldManager: options.fieldManager } : {}),
      });
    } catch (error) {
      if (!(error instanceof ApiError && error.isConflict) || attempt >= retries) throw error;
      current = await client.get(ref, name, where);
    }
  }
}
