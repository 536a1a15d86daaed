import type { DeleteOptions, ObjectOptions, PatchOptions, WriteOptions } from "./client_options.ts";
import type { KubeObject, ObjectList, ResourceRef } from "../resources/object.ts";
import type { ListOptions, RawWatchOptions } from "./types.ts";

/**
 * The resource calls of {@linkcode KubeClient}, as an interface: type a reconciler's dependencies with it
 * (or a `Pick` of it) and pass a KubeClient in production and lib/testing's `FakeApi` in unit tests.
 * Every call rejects with an `ApiError` for an error answer of the server.
 *
 * @example Depend on the calls you make: a KubeClient in production, a FakeApi in tests
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONFIG_MAPS, type ResourceClient } from "@kubeloop/kubeloop";
 * import { FakeApi } from "@kubeloop/kubeloop/testing";
 *
 * async function greeting(client: Pick<ResourceClient, "get">, name: string): Promise<string> {
 *   const cm = await client.get(CONFIG_MAPS, name);
 *   return cm.data?.greeting ?? "hello";
 * }
 *
 * const api = new FakeApi();
 * api.seed(CONFIG_MAPS, { metadata: { name: "settings", namespace: "default" }, data: { greeting: "hi" } });
 * assert.equal(await greeting(api, "settings"), "hi");
 * ```
 */
export interface ResourceClient {
  /** Reads one object. */
  get<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    name: string,
    options?: ObjectOptions,
  ): Promise<T>;
  /** Reads one page of a list. */
  list<T extends KubeObject = KubeObject>(ref: ResourceRef<T>, options?: ListOptions): Promise<ObjectList<T>>;
  /** Creates an object; the namespace defaults to the object's. */
  create<T extends KubeObject = KubeObject>(ref: ResourceRef<T>, obj: T, options?: WriteOptions): Promise<T>;
  /** Replaces an object; `metadata.resourceVersion` makes it conditional (409 Conflict when stale). */
  replace<T extends KubeObject = KubeObject>(ref: ResourceRef<T>, obj: T, options?: WriteOptions): Promise<T>;
  /** Replaces the status subresource. */
  replaceStatus<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    obj: T,
    options?: WriteOptions,
  ): Promise<T>;
  /** Patches an object (merge, JSON, strategic merge, or server-side apply). */
  patch<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    name: string,
    patch: unknown,
    options: PatchOptions,
  ): Promise<T>;
  /** Deletes an object; resolves once the server accepted it (finalizers may keep it a while). */
  delete(ref: ResourceRef, name: string, options?: DeleteOptions): Promise<void>;
  /** Opens a watch and returns its raw body (newline-delimited JSON watch events). */
  watch(ref: ResourceRef, options: RawWatchOptions): Promise<ReadableStream<Uint8Array>>;
}
