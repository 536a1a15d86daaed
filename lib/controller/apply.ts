import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { ResourceClient } from "../client/resource_client.ts";
import type { KubeObject, OwnerReference, ResourceRef } from "../resources/object.ts";

/** `T` with every field optional, all the way down (array elements too). */
export type DeepPartial<T> = unknown extends T ? T
  : T extends (...args: never[]) => unknown ? T
  : T extends readonly (infer E)[] ? DeepPartial<E>[]
  : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> }
  : T;

/** The metadata of an apply configuration: a name, and only the metadata fields a controller may own. */
export interface ApplyMetadata {
  /** The object's name. */
  name: string;
  /** Its namespace (namespaced kinds); undefined is accepted, so a `ReconcileRequest`'s namespace fits as it is. */
  namespace?: string | undefined;
  /** Labels this field manager owns. */
  labels?: Record<string, string>;
  /** Annotations this field manager owns. */
  annotations?: Record<string, string>;
  /** Owner references this field manager owns (a controller reference, typically). */
  ownerReferences?: OwnerReference[];
  /** Finalizers this field manager owns. */
  finalizers?: string[];
}

/**
 * A server-side apply body for a `T`: `apiVersion`, `kind` and `metadata.name` are required, every other
 * field optional at any depth, and typed as in `T`. Send only the fields you own: server-side apply gives
 * the field manager exactly the fields in the body, and removes those it owned before and left out.
 */
export type ApplyConfiguration<T extends KubeObject> =
  // A key-remapping mapped type, not Omit: Omit over KubeObject's index signature would drop every field.
  & { [K in keyof T as K extends "apiVersion" | "kind" | "metadata" ? never : K]?: DeepPartial<T[K]> }
  & { apiVersion: string; kind: string; metadata: ApplyMetadata };

/** Options of {@linkcode apply}. */
export interface ApplyOptions {
  /** The field manager that owns the applied fields, e.g. your controller's name. */
  readonly fieldManager: string;
  /**
   * Take over fields another manager owns instead of failing with 409 Conflict. Controllers usually force:
   * they are the authority for the fields they apply.
   * @default {true}
   */
  readonly force?: boolean;
  /**
   * Apply to a subresource instead, e.g. "status".
   * @default {the main resource}
   */
  readonly subresource?: string;
  /**
   * Aborts the request.
   * @default {never aborted}
   */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Server-side applies `config` to the `ref` object it names (created if missing) and resolves with the
 * object as stored. `config` is typed from `ref`, so a misspelt or mistyped field is a compile error.
 *
 * @example Own a set of fields with server-side apply
 * ```ts
 * import assert from "node:assert/strict";
 * import { apply, CONFIG_MAPS, KubeClient, loadConfig } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * const name = `example-${crypto.randomUUID().slice(0, 8)}`;
 * const base = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: client.namespace } };
 * const fieldManager = "example";
 * // Typed from CONFIG_MAPS: a misspelt or mistyped field does not compile.
 * const cm = await apply(client, CONFIG_MAPS, { ...base, data: { a: "1" } }, { fieldManager });
 * assert.deepEqual(cm.data, { a: "1" });
 * // The fields this manager owned and now leaves out are removed.
 * const next = await apply(client, CONFIG_MAPS, { ...base, data: { b: "2" } }, { fieldManager });
 * assert.deepEqual(next.data, { b: "2" });
 * await client.delete(CONFIG_MAPS, name, { namespace: client.namespace });
 * ```
 */
export async function apply<T extends KubeObject>(
  client: Pick<ResourceClient, "patch">,
  ref: ResourceRef<T>,
  config: ApplyConfiguration<T>,
  options: ApplyOptions,
): Promise<T> {
  const { name, namespace } = config.metadata;
  return await client.patch(ref, name, config, {
    type: "apply",
    fieldManager: options.fieldManager,
    force: options.force ?? true,
    ...(namespace ? { namespace } : {}),
    ...(options.subresource ? { subresource: options.subresource } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/**
 * True when every field of `desired` is present in `live` with the same value — i.e. applying `desired`
 * would change nothing we own, and the write can be skipped. Maps are compared key by key (extra live keys
 * are others' business or server defaults); for lists, every desired element must be matched by some live
 * element (lists of objects are usually keyed, e.g. containers by name), so foreign additions are no drift.
 */
export function containsFields(live: unknown, desired: unknown): boolean {
  if (Array.isArray(desired)) {
    if (!Array.isArray(live)) return false;
    return desired.every((want) => live.some((have) => containsFields(have, want)));
  }
  if (isRecord(desired)) {
    if (!isRecord(live)) return false;
    return Object.entries(desired).every(([key, want]) =>
      want === undefined || containsFields(live[key], want)
    );
  }
  return Object.is(live, desired);
}

/** `containsFields` for a cached object and an apply configuration, typed. */
export function applyWouldChange<T extends KubeObject>(
  live: DeepReadonly<T> | T | undefined,
  config: ApplyConfiguration<T>,
): boolean {
  return live === undefined || !containsFields(live, config);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
