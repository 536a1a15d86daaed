import type { ClusterConfig } from "../config/types.ts";
import { noopLogger } from "../log/logger.ts";
import type { Logger } from "../log/logger.ts";
import { systemClock } from "../time/clock.ts";
import { ApiError } from "./api_error.ts";
import { discardBody } from "./discard_body.ts";
import { ListBodyDecoder, ListBodyError } from "./list_body_decoder.ts";
import { borrowedTransport, OwnedTransports, type TransportSource } from "./owned_transports.ts";
import { type PathParts, resourcePath, selectorQuery, writeQuery } from "./paths.ts";
import { noopRequestMetrics } from "./request_metrics.ts";
import type { ResourceClient } from "./resource_client.ts";
import { type ApiRequest, jsonBody, type RequestBody, RequestPipeline } from "./request_pipeline.ts";
import { TokenBucket } from "./token_bucket.ts";
import { type WriteListener, WriteListeners, type WriteSource, type WriteStart } from "./write_listener.ts";
import type {
  DeleteOptions,
  KubeClientOptions,
  ListPage,
  ObjectOptions,
  PatchOptions,
  PatchType,
  WriteOptions,
} from "./client_options.ts";
import type { KubeObject, ObjectList, ResourceRef } from "../resources/object.ts";
import { apiVersionOf } from "../resources/api_version.ts";
import type { ListOptions, RawWatchOptions } from "./types.ts";

/**
 * Accept headers of metadata-only lists and watches; plain JSON stays acceptable, so a server that cannot
 * transform answers with whole objects (which still carry the metadata) instead of failing.
 */
const METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
const METADATA_OBJECT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

const contentTypes: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

/**
 * A typed REST client for any resource. Reads and writes JSON; errors from the server are
 * `ApiError`s. Namespaced get/create/replace/patch/delete default to the client's namespace;
 * list and watch without a namespace span all namespaces.
 *
 * Requests answered 401 are retried once after the credentials are invalidated (a rotated
 * token file or an expired exec credential); 429, and 503 with Retry-After, are retried up
 * to `maxRetries` times after the server's Retry-After.
 *
 * Reports its writes to {@linkcode KubeClient.onWrite} listeners, which is how an informer over this
 * client reads its writes at once (see lib/cache).
 *
 * @example Create, read, list, apply and delete a ConfigMap
 * ```ts
 * import assert from "node:assert/strict";
 * import { CONFIG_MAPS, KubeClient, loadConfig } from "@kubeloop/kubeloop";
 *
 * await using client = new KubeClient(await loadConfig());
 * const namespace = client.namespace; // the kubeconfig context's, else "default"
 * const name = `example-${crypto.randomUUID().slice(0, 8)}`;
 * await client.create(CONFIG_MAPS, {
 *   metadata: { name, namespace, labels: { app: name } },
 *   data: { a: "1" },
 * });
 * const cm = await client.get(CONFIG_MAPS, name, { namespace }); // a ConfigMap: CONFIG_MAPS carries the type
 * assert.equal(cm.data?.a, "1");
 * const list = await client.list(CONFIG_MAPS, { namespace, labelSelector: `app=${name}` });
 * assert.equal(list.items.length, 1);
 * // Server-side apply: the field manager owns exactly the fields it sends.
 * const config = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { b: "2" } };
 * await client.patch(CONFIG_MAPS, name, config, { type: "apply", fieldManager: "example" });
 * await client.delete(CONFIG_MAPS, name, { namespace });
 * ```
 */
export class KubeClient implements ResourceClient, WriteSource, AsyncDisposable {
  readonly #config: ClusterConfig;
  readonly #transports: TransportSource;
  readonly #pipeline: RequestPipeline;
  readonly #logger: Logger;
  readonly #writes: WriteListeners;

  /** A client for the cluster `config` describes. */
  constructor(config: ClusterConfig, options: KubeClientOptions = {}) {
    this.#config = config;
    this.#logger = options.logger ?? noopLogger;
    const clock = options.clock ?? systemClock;
    this.#transports = options.transport
      ? borrowedTransport(options.transport)
      : new OwnedTransports(config.tls, this.#logger, options.maxBodyBytes);
    this.#pipeline = new RequestPipeline({
      config,
      transports: this.#transports,
      limiter: options.qps ? new TokenBucket(options.qps, options.burst ?? 10, clock) : undefined,
      maxRetries: options.maxRetries ?? 5,
      maxRetryWaitMs: options.maxRetryWaitMs ?? 30_000,
      metrics: options.metrics ?? noopRequestMetrics,
      logger: this.#logger,
      clock,
      userAgent: options.userAgent ?? "kubeloop/0.1.0",
      writeFence: options.writeFence,
    });
    this.#writes = new WriteListeners((error) =>
      this.#logger.error("Write listener failed", {
        error: error instanceof Error ? error.message : String(error),
      })
    );
  }

  /**
   * Adds a listener told of every write (create, replace, patch, delete; status writes too) before it is
   * sent and, with the server's answer, when it succeeded, before the caller's `await` resumes; dry runs
   * are not reported. Returns the function that removes it. An informer over this client uses it to
   * cache what a reconcile wrote at once.
   */
  onWrite(listener: WriteListener): () => void {
    return this.#writes.onWrite(listener);
  }

  /** The default namespace (from the kubeconfig context or the in-cluster namespace file). */
  get namespace(): string {
    return this.#config.namespace;
  }

  /** Reads one object. */
  async get<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    name: string,
    options: ObjectOptions = {},
  ): Promise<T> {
    const path = resourcePath(ref, { namespace: this.#ns(ref, options.namespace), name });
    return await this.#json<T>("GET", path, undefined, undefined, options.signal, op("get", ref));
  }

  /**
   * Reads any path below the server URL as JSON: discovery (`/apis`), `/version`, `/openapi/v3/...`. The
   * path must start with "/" and hold no query, fragment or ".." segment (use the typed calls for resources).
   */
  async getPath<T = unknown>(
    path: string,
    options: { readonly signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    if (!path.startsWith("/") || /[?#]|(^|\/)\.\.?(\/|$)/.test(path)) {
      throw new TypeError(
        `Invalid API path "${path}": expected an absolute path without query or dot segments`,
      );
    }
    return await this.#json<T>("GET", path, undefined, undefined, options.signal);
  }

  /** Reads one page of a list. */
  async list<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    options: ListOptions = {},
  ): Promise<ObjectList<T>> {
    const path = resourcePath(ref, { namespace: options.namespace });
    const res = await this.#pipeline.send({
      method: "GET",
      path,
      query: selectorQuery(options, false),
      signal: options.signal,
      stream: false,
      accept: options.metadataOnly ? METADATA_LIST : undefined,
      operation: op("list", ref),
    });
    // Item by item: a large list never exists as one string next to its objects.
    const transformItem = options.transformItem;
    const decoder = new ListBodyDecoder(transformItem && ((item) => transformItem(item as KubeObject)));
    try {
      for await (const chunk of res.body) decoder.push(chunk);
      return decoder.end() as unknown as ObjectList<T>;
    } catch (cause) {
      // Leaving the loop by a throw has already cancelled the body (the stream iterator's return).
      if (!(cause instanceof ListBodyError)) throw cause;
      throw new SyntaxError(`Invalid JSON from GET ${path} (HTTP ${res.status})`, { cause });
    }
  }

  /**
   * Reads every page of a list (`limit` defaults to 500). If a continue token expires (410)
   * between pages, the list starts over with a fresh first page marked `restarted: true`, so
   * the caller discards what it collected; this happens at most three times.
   */
  async *listAll<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    options: ListOptions = {},
  ): AsyncIterable<ListPage<T>> {
    let cont: string | undefined = options.continue;
    let restarted = false;
    let restarts = 0;
    for (;;) {
      let page: ObjectList<T>;
      try {
        page = await this.list<T>(ref, {
          ...options,
          limit: options.limit ?? 500,
          ...(cont ? { continue: cont } : {}),
        });
      } catch (err) {
        if (err instanceof ApiError && err.isGone && cont && restarts < 3) {
          this.#logger.info("continue token expired; listing again from the start", { resource: ref.plural });
          cont = undefined;
          restarted = true;
          restarts++;
          continue;
        }
        throw err;
      }
      yield { ...page, restarted };
      restarted = false;
      cont = page.metadata.continue || undefined;
      if (!cont) return;
    }
  }

  /**
   * Creates an object; the namespace defaults to `obj.metadata.namespace`. A missing `apiVersion` or
   * `kind` is filled in from `ref` (the API server refuses a custom resource without them).
   */
  async create<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    const namespace = this.#ns(ref, options.namespace ?? obj.metadata.namespace);
    const path = resourcePath(ref, { namespace });
    const body = withTypeMeta(ref, obj);
    return await this.#write(
      {
        ref,
        verb: "create",
        namespace,
        name: obj.metadata.name,
        subresource: undefined,
        patchType: undefined,
        body,
      },
      options.dryRun,
      () =>
        this.#json<T>("POST", path, writeQuery(options), jsonBody(body), options.signal, op("create", ref)),
    );
  }

  /**
   * Replaces an object (PUT); `metadata.resourceVersion` makes it conditional (409 on conflict). A missing
   * `apiVersion` or `kind` is filled in from `ref`.
   */
  async replace<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return await this.#put(ref, obj, options, undefined);
  }

  /** Replaces the status subresource of an object. */
  async replaceStatus<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return await this.#put(ref, obj, options, "status");
  }

  /** Patches an object: merge, JSON, strategic-merge, or server-side apply (`type: "apply"`). */
  async patch<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    name: string,
    patch: unknown,
    options: PatchOptions,
  ): Promise<T> {
    if (options.type === "apply" && !options.fieldManager) {
      throw new TypeError("Server-side apply needs a fieldManager");
    }
    const parts: PathParts = {
      namespace: this.#ns(ref, options.namespace),
      name,
      subresource: options.subresource,
    };
    const query = writeQuery(options);
    if (options.force !== undefined) query.set("force", String(options.force));
    const body = { text: JSON.stringify(patch), type: contentTypes[options.type] };
    return await this.#write(
      {
        ref,
        verb: "patch",
        namespace: parts.namespace,
        name,
        subresource: options.subresource,
        patchType: options.type,
        body: patch,
      },
      options.dryRun,
      () =>
        this.#json<T>(
          "PATCH",
          resourcePath(ref, parts),
          query,
          body,
          options.signal,
          op(options.type === "apply" ? "apply" : "patch", ref, options.subresource),
        ),
    );
  }

  /** Deletes an object. Resolves once the server accepted the deletion (finalizers may keep it). */
  async delete(ref: ResourceRef, name: string, options: DeleteOptions = {}): Promise<void> {
    const namespace = this.#ns(ref, options.namespace);
    const path = resourcePath(ref, { namespace, name });
    const body: Record<string, unknown> = { apiVersion: "v1", kind: "DeleteOptions" };
    if (options.propagationPolicy) body.propagationPolicy = options.propagationPolicy;
    if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds;
    if (options.preconditions) body.preconditions = options.preconditions;
    if (options.dryRun) body.dryRun = ["All"];
    const send = async () => {
      const res = await this.#pipeline.send({
        method: "DELETE",
        path,
        body: jsonBody(body),
        signal: options.signal,
        stream: false,
        operation: op("delete", ref),
      });
      if (this.#writes.size === 0) return await discardBody(res, false);
      // The answer (the object while finalizers keep it, else a Status) goes to the write listeners.
      const text = await res.text();
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return undefined; // not JSON: the listeners learn nothing more than that it succeeded
      }
    };
    await this.#write(
      { ref, verb: "delete", namespace, name, subresource: undefined, patchType: undefined, body },
      options.dryRun,
      send,
    );
  }

  /**
   * Opens a watch and returns its raw byte stream (decoding is lib/watch's job). Rejects with
   * an ApiError when the server refuses, e.g. 410 for a resourceVersion that is too old.
   * Cancelling the stream closes the connection.
   */
  async watch(ref: ResourceRef, options: RawWatchOptions): Promise<ReadableStream<Uint8Array>> {
    const path = resourcePath(ref, { namespace: options.namespace });
    const query = selectorQuery(options, true);
    const res = await this.#pipeline.send({
      method: "GET",
      path,
      query,
      signal: options.signal,
      stream: true,
      accept: options.metadataOnly ? METADATA_OBJECT : undefined,
      operation: op("watch", ref),
    });
    return res.body;
  }

  /** Closes the connections this client opened. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#transports.close();
    await Promise.resolve();
  }

  async #put<T extends KubeObject>(
    ref: ResourceRef,
    obj: T,
    options: WriteOptions,
    sub?: string,
  ): Promise<T> {
    const name = obj.metadata.name;
    if (!name) throw new TypeError("Cannot replace an object without metadata.name");
    const parts = {
      namespace: this.#ns(ref, options.namespace ?? obj.metadata.namespace),
      name,
      subresource: sub,
    };
    const body = withTypeMeta(ref, obj);
    return await this.#write(
      { ...parts, ref, verb: "replace", patchType: undefined, body },
      options.dryRun,
      () =>
        this.#json<T>(
          "PUT",
          resourcePath(ref, parts),
          writeQuery(options),
          jsonBody(body),
          options.signal,
          op("update", ref, sub),
        ),
    );
  }

  /** Sends a write, telling the write listeners before and after (not for a dry run). */
  async #write<R>(write: WriteStart, dryRun: boolean | undefined, send: () => Promise<R>): Promise<R> {
    if (dryRun || this.#writes.size === 0) return await send();
    return await this.#writes.around(write, send, (answer) => answer);
  }

  #ns(ref: ResourceRef, namespace: string | undefined): string | undefined {
    if (!ref.namespaced) return undefined;
    return namespace ?? this.#config.namespace;
  }

  async #json<T>(
    method: string,
    path: string,
    query: URLSearchParams | undefined,
    body: RequestBody | undefined,
    signal: AbortSignal | undefined,
    operation?: ApiRequest["operation"],
  ): Promise<T> {
    const res = await this.#pipeline.send({ method, path, query, body, signal, stream: false, operation });
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new SyntaxError(`Invalid JSON from ${method} ${path} (HTTP ${res.status})`, { cause });
    }
  }
}

/** `obj` with `apiVersion` and `kind` from `ref` where it has none (the server checks the ones it has). */
function withTypeMeta<T extends KubeObject>(ref: ResourceRef, obj: T): T {
  if (obj.apiVersion !== undefined && obj.kind !== undefined) return obj;
  return { apiVersion: apiVersionOf(ref), kind: ref.kind, ...obj };
}

/** A request's verb and resource ("apps/v1/deployments", "v1/pods/status"), for its span. */
function op(verb: string, ref: ResourceRef, subresource?: string): ApiRequest["operation"] {
  const resource = `${ref.group ? `${ref.group}/` : ""}${ref.version}/${ref.plural}`;
  return { verb, resource: subresource ? `${resource}/${subresource}` : resource };
}
