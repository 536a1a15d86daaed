import { ApiError } from "../client/api_error.ts";
import { type DeepReadonly, mutableCopy } from "../resources/deep_readonly.ts";
import type { ResourceClient } from "../client/resource_client.ts";
import type { KubeObject, ResourceRef } from "../resources/object.ts";
import { apiVersionOf } from "../resources/api_version.ts";
import { mergePatch } from "./merge_patch.ts";

/** Options of {@linkcode createOrPatch}. */
export interface CreateOrPatchOptions<T extends KubeObject> {
  /**
   * The current object, e.g. from an informer's store, to save the GET; `null` says it does not exist.
   * @default {read from the server}
   */
  readonly current?: DeepReadonly<T> | T | null;
  /**
   * Recorded in managedFields.
   * @default {the server's default}
   */
  readonly fieldManager?: string;
  /**
   * Aborts the requests.
   * @default {never aborted}
   */
  readonly signal?: AbortSignal | undefined;
}

/** What {@linkcode createOrPatch} did, and the object as stored. */
export type CreateOrPatchResult<T> =
  | { readonly operation: "created" | "patched"; readonly object: T }
  | { readonly operation: "unchanged"; readonly object: DeepReadonly<T> | T };

/**
 * Makes the `ref` object `name` (in `namespace`) look the way `mutate` says: reads it (or takes
 * `options.current`), lets `mutate` change a private copy — or, when it does not exist, a new object with
 * only apiVersion, kind and metadata (name, namespace) that `mutate` fills in — then creates it, or sends
 * a JSON merge patch of exactly the difference carrying `metadata.resourceVersion`, or nothing when
 * `mutate` changed nothing. The patch applies only to the version read: if the object changed meanwhile the
 * server answers 409 Conflict (an `ApiError` with `isConflict`), and the reconcile should run again with
 * fresh state. A create racing another gives 409 AlreadyExists likewise.
 *
 * Use server-side {@linkcode apply} when you own a fixed set of fields; use this when the change depends on
 * the current content (e.g. adding an entry to a map others write too).
 *
 * @example Add an entry to a map others write too
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONFIG_MAPS, type ConfigMap, createOrPatch, KubeClient, loadConfig } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * const target = { name: `example-${crypto.randomUUID().slice(0, 8)}`, namespace: client.namespace };
 * const enable = (key: string) => (cm: ConfigMap) => void (cm.data = { ...cm.data, [key]: "on" });
 * assert.equal((await createOrPatch(client, CONFIG_MAPS, target, enable("a"))).operation, "created");
 * const second = await createOrPatch(client, CONFIG_MAPS, target, enable("b"));
 * assert.equal(second.operation, "patched"); // a merge patch of data.b, valid only for the version read
 * assert.deepEqual(second.object.data, { a: "on", b: "on" });
 * assert.equal((await createOrPatch(client, CONFIG_MAPS, target, enable("b"))).operation, "unchanged");
 * await client.delete(CONFIG_MAPS, target.name, { namespace: target.namespace });
 * ```
 */
export async function createOrPatch<T extends KubeObject>(
  client: Pick<ResourceClient, "get" | "create" | "patch">,
  ref: ResourceRef<T>,
  target: { readonly name: string; readonly namespace?: string },
  mutate: (draft: T) => void,
  options: CreateOrPatchOptions<T> = {},
): Promise<CreateOrPatchResult<T>> {
  const where = {
    ...(target.namespace ? { namespace: target.namespace } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const write = { ...where, ...(options.fieldManager ? { fieldManager: options.fieldManager } : {}) };
  let current: DeepReadonly<T> | T | undefined;
  if (options.current !== undefined) {
    current = options.current ?? undefined;
  } else {
    try {
      current = await client.get(ref, target.name, where);
    } catch (error) {
      if (!(error instanceof ApiError && error.isNotFound)) throw error;
    }
  }
  if (!current) {
    // The skeleton lacks the kind's required fields; `mutate` adds them and the server validates the rest.
    const draft = {
      apiVersion: apiVersionOf(ref),
      kind: ref.kind,
      metadata: { name: target.name, ...(target.namespace ? { namespace: target.namespace } : {}) },
    } as T;
    mutate(draft);
    return { operation: "created", object: await client.create(ref, draft, write) };
  }
  const draft = mutableCopy(current) as T;
  mutate(draft);
  const patch = mergePatch(current, draft);
  if (patch === undefined) return { operation: "unchanged", object: current };
  const body = { ...patch as Record<string, unknown> };
  body.metadata = {
    ...body.metadata as Record<string, unknown>,
    resourceVersion: current.metadata.resourceVersion,
  };
  const object = await client.patch(ref, target.name, body, { type: "merge", ...write });
  return { operation: "patched", object };
}
