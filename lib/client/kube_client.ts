import type { ClusterConfig, Credentials } from "../config/types.ts";
import { HttpClient } from "../http/mod.ts";
import type { HttpResponse, TlsOptions, Transport } from "../http/types.ts";
import { noopLogger } from "../observe/types.ts";
import type { Logger } from "../observe/types.ts";
import { type Clock, sleep, systemClock } from "../time/clock.ts";
import { ApiError } from "./api_error.ts";
import { errorFromResponse } from "./error_response.ts";
import { type PathParts, resourcePath, selectorQuery } from "./paths.ts";
import { noopRequestMetrics, type RequestMetrics } from "./request_metrics.ts";
import { TokenBucket } from "./token_bucket.ts";
import type {
  DeleteOptions,
  KubeClientOptions,
  ListPage,
  ObjectOptions,
  PatchOptions,
  PatchType,
  WriteOptions,
} from "./client_options.ts";
import type { KubeObject, ListOptions, ObjectList, ResourceRef, WatchOptions } from "./types.ts";

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
 */
export class KubeClient implements AsyncDisposable {
  readonly #config: ClusterConfig;
  readonly #base: string;
  readonly #transport: Transport | undefined;
  readonly #owned = new Map<string, Transport>();
  readonly #limiter: TokenBucket | undefined;
  readonly #maxRetries: number;
  readonly #maxRetryWaitMs: number;
  readonly #metrics: RequestMetrics;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #userAgent: string;

  /** A client for the cluster `config` describes. */
  constructor(config: ClusterConfig, options: KubeClientOptions = {}) {
    this.#config = config;
    this.#base = config.server.href.replace(/\/+$/, "");
    this.#transport = options.transport;
    this.#clock = options.clock ?? systemClock;
    this.#limiter = options.qps ? new TokenBucket(options.qps, options.burst ?? 10, this.#clock) : undefined;
    this.#maxRetries = options.maxRetries ?? 5;
    this.#maxRetryWaitMs = options.maxRetryWaitMs ?? 30_000;
    this.#metrics = options.metrics ?? noopRequestMetrics;
    this.#logger = options.logger ?? noopLogger;
    this.#userAgent = options.userAgent ?? "kubeloop/0.1.0";
  }

  /** The default namespace (from the kubeconfig context or the in-cluster namespace file). */
  get namespace(): string {
    return this.#config.namespace;
  }

  /** Reads one object. */
  async get<T extends KubeObject>(ref: ResourceRef, name: string, options: ObjectOptions = {}): Promise<T> {
    const path = resourcePath(ref, { namespace: this.#ns(ref, options.namespace), name });
    return await this.#json<T>("GET", path, undefined, undefined, options.signal);
  }

  /** Reads one page of a list. */
  async list<T extends KubeObject>(ref: ResourceRef, options: ListOptions = {}): Promise<ObjectList<T>> {
    const path = resourcePath(ref, { namespace: options.namespace });
    return await this.#json<ObjectList<T>>(
      "GET",
      path,
      selectorQuery(options, false),
      undefined,
      options.signal,
    );
  }

  /**
   * Reads every page of a list (`limit` defaults to 500). If a continue token expires (410)
   * between pages, the list starts over with a fresh first page marked `restarted: true`, so
   * the caller discards what it collected; this happens at most three times.
   */
  async *listAll<T extends KubeObject>(
    ref: ResourceRef,
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

  /** Creates an object; the namespace defaults to `obj.metadata.namespace`. */
  async create<T extends KubeObject>(ref: ResourceRef, obj: T, options: WriteOptions = {}): Promise<T> {
    const path = resourcePath(ref, { namespace: this.#ns(ref, options.namespace ?? obj.metadata.namespace) });
    return await this.#json<T>("POST", path, writeQuery(options), jsonBody(obj), options.signal);
  }

  /** Replaces an object (PUT); `metadata.resourceVersion` makes it conditional (409 on conflict). */
  async replace<T extends KubeObject>(ref: ResourceRef, obj: T, options: WriteOptions = {}): Promise<T> {
    return await this.#put(ref, obj, options, undefined);
  }

  /** Replaces the status subresource of an object. */
  async replaceStatus<T extends KubeObject>(
    ref: ResourceRef,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return await this.#put(ref, obj, options, "status");
  }

  /** Patches an object: merge, JSON, strategic-merge, or server-side apply (`type: "apply"`). */
  async patch<T extends KubeObject>(
    ref: ResourceRef,
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
    return await this.#json<T>("PATCH", resourcePath(ref, parts), query, body, options.signal);
  }

  /** Deletes an object. Resolves once the server accepted the deletion (finalizers may keep it). */
  async delete(ref: ResourceRef, name: string, options: DeleteOptions = {}): Promise<void> {
    const path = resourcePath(ref, { namespace: this.#ns(ref, options.namespace), name });
    const body: Record<string, unknown> = { apiVersion: "v1", kind: "DeleteOptions" };
    if (options.propagationPolicy) body.propagationPolicy = options.propagationPolicy;
    if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds;
    if (options.preconditions) body.preconditions = options.preconditions;
    if (options.dryRun) body.dryRun = ["All"];
    const res = await this.#send("DELETE", path, undefined, jsonBody(body), options.signal, false);
    await res.cancel();
  }

  /**
   * Opens a watch and returns its raw byte stream (decoding is lib/watch's job). Rejects with
   * an ApiError when the server refuses, e.g. 410 for a resourceVersion that is too old.
   * Cancelling the stream closes the connection.
   */
  async watch(ref: ResourceRef, options: WatchOptions): Promise<ReadableStream<Uint8Array>> {
    const path = resourcePath(ref, { namespace: options.namespace });
    const res = await this.#send("GET", path, selectorQuery(options, true), undefined, options.signal, true);
    return res.body;
  }

  /** Closes the connections this client opened. */
  async [Symbol.asyncDispose](): Promise<void> {
    for (const t of this.#owned.values()) t.close();
    this.#owned.clear();
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
    return await this.#json<T>(
      "PUT",
      resourcePath(ref, parts),
      writeQuery(options),
      jsonBody(obj),
      options.signal,
    );
  }

  #ns(ref: ResourceRef, namespace: string | undefined): string | undefined {
    if (!ref.namespaced) return undefined;
    return namespace ?? this.#config.namespace;
  }

  async #json<T>(
    method: string,
    path: string,
    query: URLSearchParams | undefined,
    body: Body | undefined,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const res = await this.#send(method, path, query, body, signal, false);
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new SyntaxError(`Invalid JSON from ${method} ${path} (HTTP ${res.status})`, { cause });
    }
  }

  async #send(
    method: string,
    path: string,
    query: URLSearchParams | undefined,
    body: Body | undefined,
    signal: AbortSignal | undefined,
    stream: boolean,
  ): Promise<HttpResponse> {
    const qs = query?.toString();
    const url = new URL(this.#base + path + (qs ? `?${qs}` : ""));
    let authRetried = false;
    for (let attempt = 0;; attempt++) {
      signal?.throwIfAborted();
      await this.#limiter?.take(signal);
      const creds = await this.#config.credentials.get(signal);
      const headers: Record<string, string> = { "Accept": "application/json", "User-Agent": this.#userAgent };
      if (creds.token) headers["Authorization"] = `Bearer ${creds.token}`;
      if (body) headers["Content-Type"] = body.type;
      const started = this.#clock.now();
      let res: HttpResponse;
      try {
        res = await this.#transportFor(creds).request({
          method,
          url,
          headers,
          ...(body ? { body: body.text } : {}),
          ...(signal ? { signal } : {}),
          stream,
        });
      } catch (err) {
        this.#observe(method, "<error>", started);
        throw err;
      }
      this.#observe(method, String(res.status), started);
      if (res.status >= 200 && res.status < 300) return res;
      if (res.status === 401 && !authRetried) {
        authRetried = true;
        await res.cancel();
        this.#config.credentials.invalidate();
        continue;
      }
      const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
      const retryable = res.status === 429 || (res.status === 503 && retryAfter !== undefined);
      if (retryable && attempt < this.#maxRetries) {
        await res.cancel();
        const waitMs = Math.min((retryAfter ?? 1) * 1000, this.#maxRetryWaitMs);
        this.#logger.debug("server asked to retry", { method, path, status: res.status, waitMs });
        await sleep(waitMs, signal ? { signal, clock: this.#clock } : { clock: this.#clock });
        continue;
      }
      throw await errorFromResponse(res, method, path, retryAfter);
    }
  }

  #transportFor(creds: Credentials): Transport {
    if (this.#transport) return this.#transport;
    const { cert, key } = creds;
    const id = cert && key ? cert : "";
    const existing = this.#owned.get(id);
    if (existing) return existing;
    const tls: TlsOptions = cert && key ? { ...this.#config.tls, cert, key } : this.#config.tls;
    const created = new HttpClient({ tls, logger: this.#logger, userAgent: this.#userAgent });
    this.#owned.set(id, created);
    return created;
  }

  #observe(method: string, code: string, started: number): void {
    const durationSeconds = (this.#clock.now() - started) / 1000;
    this.#metrics.observe({ method, code, host: this.#config.server.host, durationSeconds });
  }
}

interface Body {
  readonly text: string;
  readonly type: string;
}

function jsonBody(value: unknown): Body {
  return { text: JSON.stringify(value), type: "application/json" };
}

function writeQuery(options: WriteOptions): URLSearchParams {
  const q = new URLSearchParams();
  if (options.fieldManager) q.set("fieldManager", options.fieldManager);
  if (options.dryRun) q.set("dryRun", "All");
  return q;
}

/** Retry-After in seconds (delta-seconds form only, as the API server sends). */
function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const n = Number(value.trim());
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
