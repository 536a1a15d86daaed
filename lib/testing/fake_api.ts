import { ApiError } from "../client/api_error.ts";
import type { DeleteOptions, ObjectOptions, PatchOptions, WriteOptions } from "../client/client_options.ts";
import type { ResourceClient } from "../client/resource_client.ts";
import {
  type WriteListener,
  WriteListeners,
  type WriteSource,
  type WriteStart,
} from "../client/write_listener.ts";
import type { KubeObject, ObjectList, ResourceRef, Status, UnstructuredObject } from "../resources/object.ts";
import type { ListOptions, RawWatchOptions } from "../client/types.ts";
import { apiVersionOf } from "../resources/api_version.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import type { ListWatcher } from "../watch/list_watcher.ts";
import {
  appliedPaths,
  applyConfiguration,
  applyJsonPatch,
  applyMergePatch,
  removePaths,
  sameJson,
} from "./_patches.ts";
import { type Change, FakeWatch, partialMetadata, scopeMatcher } from "./_fake_watch.ts";
import { InvalidSelectorError } from "../cache/selector_match.ts";
import { NAMESPACES } from "../resources/refs.ts";
import {
  deletionHeld,
  finalizedNamespace,
  isNamespaces,
  terminatingNamespace,
  withNamespaceDefaults,
} from "./_fake_namespaces.ts";

/** The calls FakeApi serves, as named in {@linkcode FakeRequest} and {@linkcode FakeFault}. */
export type FakeVerb = "get" | "list" | "create" | "update" | "patch" | "delete" | "watch";

/** One call FakeApi received (also the failed ones). */
export interface FakeRequest {
  /** The call. */
  readonly verb: FakeVerb;
  /** Plural resource name, e.g. "configmaps". */
  readonly resource: string;
  /** The namespace, for namespaced calls. */
  readonly namespace?: string;
  /** The object name, for calls on one object. */
  readonly name?: string;
  /** "status" for status writes. */
  readonly subresource?: string;
  /** The patch type of a patch. */
  readonly patchType?: string;
}

/** An error FakeApi answers instead of serving matching calls. */
export interface FakeFault {
  /**
   * Only this call.
   * @default {every call}
   */
  readonly verb?: FakeVerb;
  /**
   * Only this resource (plural, e.g. "configmaps").
   * @default {every resource}
   */
  readonly resource?: string;
  /**
   * Only calls on this object name.
   * @default {any name}
   */
  readonly name?: string;
  /**
   * How many matching calls fail; then the fault is gone.
   * @default {1}
   */
  readonly times?: number;
  /** What the call rejects with, e.g. `new ApiError({ code: 409, reason: "Conflict" })`. */
  readonly error: Error;
}

/** Options of {@linkcode FakeApi}. */
export interface FakeApiOptions {
  /**
   * The namespace of namespaced calls that name none (a KubeClient's default namespace).
   * @default {"default"}
   */
  readonly namespace?: string;
  /**
   * Source of creationTimestamp and deletionTimestamp.
   * @default {systemClock}
   */
  readonly clock?: Clock;
  /**
   * Delete objects whose owners are all gone, like the garbage collector's background deletion.
   * @default {true}
   */
  readonly garbageCollection?: boolean;
  /**
   * Awaited after a write succeeded (its watch event already sent) and before its answer returns, e.g. a
   * promise the test resolves once an informer has seen the watch event: a busy API server often sends
   * the watch event of a write before the write's answer, and read-your-writes must hold either way.
   * @default {none: the answer returns at once}
   */
  readonly beforeAnswer?: (request: FakeRequest) => Promise<void> | void;
}

interface Resource {
  readonly ref: ResourceRef;
  readonly objects: Map<string, KubeObject>;
}

/**
 * An in-memory Kubernetes API for unit tests: implements {@linkcode ResourceClient} (what a reconciler uses)
 * and `ListWatcher` (what informers use), so a controller runs unchanged against it, without a network.
 *
 * What it does like the API server: one global resourceVersion counter; uid, creationTimestamp and
 * generation (bumped when anything but metadata and status changes); 404 NotFound, 409 AlreadyExists, 409
 * Conflict for a stale `metadata.resourceVersion` on replace or patch; status written only through the
 * status subresource (main-resource writes keep it, and create drops it); deletion waits for finalizers
 * (deletionTimestamp set, then removal when the last finalizer goes); background garbage collection of
 * dependents; label selectors (`=`, `!=`, `in`, `notin`, exists) and `metadata.name` /
 * `metadata.namespace` field selectors (400 BadRequest when malformed); metadata-only lists and watches;
 * paged lists; watches from a resourceVersion (replayed from history, 410 Expired after
 * `compact()`), with synthetic ADDED events from "0" and streaming lists (`sendInitialEvents`).
 * Namespaces, with the namespace controller's work done at once: a new one holds `kubernetes` in
 * `spec.finalizers`; its delete answers with it Terminating, deletes its content (finalizers respected)
 * and removes it once that is gone; a create in a terminating Namespace is 403 Forbidden.
 *
 * What it approximates: merge and strategic-merge patches are both RFC 7396 merge patches; server-side
 * apply merges the body into the object (maps recursively, lists of named items by name) and removes the
 * fields the same field manager applied before and leaves out now, but does not detect conflicts between
 * managers (every apply acts as forced) nor give fields to writers of other patch types; no admission,
 * defaulting or schema validation besides the Namespace's above; no bookmarks besides the streaming list's.
 *
 * Inject failures with {@linkcode FakeApi.fail}; inspect calls with `requests` and objects with `objects`.
 * Reports its writes to {@linkcode FakeApi.onWrite} listeners as KubeClient does (a delete without
 * finalizers answers with a Status, as the server does), so informers over it read their writes too.
 *
 * @example Test code that writes, and how it handles a conflict
 * ```ts
 * import assert from "node:assert/strict";
 * import { ApiError, CONFIG_MAPS, type ResourceClient } from "@kubeloop/kubeloop";
 * import { FakeApi } from "@kubeloop/kubeloop/testing";
 *
 * // The code under test takes a ResourceClient (a KubeClient in production).
 * async function enable(client: ResourceClient, name: string): Promise<void> {
 *   await client.patch(CONFIG_MAPS, name, { data: { enabled: "true" } }, { type: "merge" });
 * }
 *
 * const api = new FakeApi(); // calls that name no namespace go to "default"
 * api.seed(CONFIG_MAPS, { metadata: { name: "settings", namespace: "default" } });
 * await enable(api, "settings");
 * assert.equal(api.object(CONFIG_MAPS, "settings", "default")?.data?.enabled, "true");
 * // The next patch fails as on a stale resourceVersion.
 * api.fail({ verb: "patch", error: new ApiError({ code: 409, reason: "Conflict" }) });
 * await assert.rejects(enable(api, "settings"), (e: unknown) => e instanceof ApiError && e.isConflict);
 * ```
 */
export class FakeApi implements ResourceClient, ListWatcher, WriteSource {
  /** Every call received, in order. */
  readonly requests: FakeRequest[] = [];
  readonly #namespace: string;
  readonly #clock: Clock;
  readonly #gc: boolean;
  readonly #beforeAnswer: ((request: FakeRequest) => Promise<void> | void) | undefined;
  readonly #writes = new WriteListeners((error) => {
    throw error; // a listener bug fails the test that hit it
  });
  readonly #resources = new Map<string, Resource>();
  readonly #history: Change[] = [];
  readonly #watches = new Set<FakeWatch>();
  #faults: { fault: FakeFault; left: number }[] = [];
  /** Per object uid, per field manager: the fields its last apply set (see appliedPaths). */
  readonly #applied = new Map<string, Map<string, string[]>>();
  #rv = 1000;
  #compactedRv = 1000;
  /** Namespaces whose content #finishNamespace is deleting right now. */
  readonly #finishing = new Set<string>();

  /** An empty API. */
  constructor(options: FakeApiOptions = {}) {
    this.#namespace = options.namespace ?? "default";
    this.#clock = options.clock ?? systemClock;
    this.#gc = options.garbageCollection ?? true;
    this.#beforeAnswer = options.beforeAnswer;
  }

  /**
   * Adds a listener told of every write before it is served and of its answer before the caller resumes,
   * as KubeClient's; dry runs are not reported. Returns the function that removes it.
   */
  onWrite(listener: WriteListener): () => void {
    return this.#writes.onWrite(listener);
  }

  /** The current resourceVersion (of the last write). */
  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** Makes matching calls reject with `fault.error` (`fault.times` times, once by default). */
  fail(fault: FakeFault): void {
    this.#faults.push({ fault, left: fault.times ?? 1 });
  }

  /**
   * Stores `objects` as they are (status included), filling in uid, resourceVersion, creationTimestamp,
   * generation and the default namespace where missing; watches see them as ADDED. For test fixtures.
   */
  seed<T extends KubeObject>(ref: ResourceRef<T>, ...objects: T[]): T[] {
    return objects.map((obj) => {
      const namespace = ref.namespaced ? obj.metadata.namespace ?? this.#namespace : undefined;
      const stored = this.#stamp(ref, structuredClone(obj), namespace);
      this.#put(ref, stored, undefined);
      return structuredClone(stored) as T;
    });
  }

  /** Copies of the stored `ref` objects (in `namespace`, or all), sorted by namespace and name. */
  objects<T extends KubeObject>(ref: ResourceRef<T>, namespace?: string): T[] {
    return [...this.#resource(ref).objects.values()]
      .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
      .sort((a, b) => keyOf(a).localeCompare(keyOf(b)))
      .map((o) => structuredClone(o) as T);
  }

  /** A copy of one stored object, or undefined. */
  object<T extends KubeObject>(ref: ResourceRef<T>, name: string, namespace?: string): T | undefined {
    const found = this.#resource(ref).objects.get(key(name, this.#ns(ref, namespace)));
    return found ? structuredClone(found) as T : undefined;
  }

  /** Forgets the change history: watches from an older resourceVersion get 410 Expired (and relist). */
  compact(): void {
    this.#history.length = 0;
    this.#compactedRv = this.#rv;
  }

  /** Ends every open watch cleanly, as the server does when `timeoutSeconds` passes. */
  closeWatches(): void {
    for (const watch of [...this.#watches]) watch.close();
  }

  /** Number of open watches. */
  get openWatches(): number {
    return this.#watches.size;
  }

  get<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    name: string,
    options: ObjectOptions = {},
  ): Promise<T> {
    return this.#serve(() => {
      const namespace = this.#ns(ref, options.namespace);
      this.#record("get", ref, namespace, name);
      return structuredClone(this.#existing(ref, name, namespace)) as T;
    });
  }

  list<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    options: ListOptions = {},
  ): Promise<ObjectList<T>> {
    return this.#serve(() => {
      const namespace = ref.namespaced ? options.namespace : undefined;
      this.#record("list", ref, namespace);
      const matches = this.#scope(ref, { ...options, ...(namespace === undefined ? {} : { namespace }) });
      const all = [...this.#resource(ref).objects.values()].filter(matches).sort((a, b) =>
        keyOf(a).localeCompare(keyOf(b))
      );
      const start = options.continue ? Number(atob(options.continue)) : 0;
      const end = options.limit ? start + options.limit : all.length;
      const project = options.metadataOnly ? partialMetadata : (o: KubeObject) => o;
      const items = all.slice(start, end).map((o) => {
        const item = structuredClone(project(o)) as T;
        return options.transformItem ? options.transformItem(item) as T : item;
      });
      const more = end < all.length;
      return {
        apiVersion: apiVersionOf(ref),
        kind: `${ref.kind}List`,
        metadata: {
          resourceVersion: this.resourceVersion,
          ...(more ? { continue: btoa(String(end)), remainingItemCount: all.length - end } : {}),
        },
        items,
      };
    });
  }

  create<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    const start = this.#start(
      ref,
      "create",
      options.namespace ?? obj.metadata.namespace,
      obj.metadata.name,
      obj,
    );
    return this.#serveWrite(start, options.dryRun, () => {
      const namespace = this.#ns(ref, options.namespace ?? obj.metadata.namespace);
      const name = obj.metadata.name ?? generated(obj.metadata.generateName);
      this.#record("create", ref, namespace, name);
      if (!name) throw invalid(ref, "", "metadata.name or metadata.generateName is required");
      if (this.#resource(ref).objects.has(key(name, namespace))) {
        throw apiError(409, "AlreadyExists", `${ref.plural} "${name}" already exists`, ref, name);
      }
      this.#refuseInTerminating(ref, namespace, name);
      const { status: _dropped, ...rest } = structuredClone(obj) as KubeObject as UnstructuredObject;
      const stored = this.#stamp(
        ref,
        { ...rest, metadata: { ...rest.metadata, name } } as KubeObject,
        namespace,
        options.dryRun,
      );
      if (!options.dryRun) this.#put(ref, stored, undefined);
      return structuredClone(stored) as T;
    });
  }

  replace<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    const start = this.#start(
      ref,
      "replace",
      options.namespace ?? obj.metadata.namespace,
      obj.metadata.name,
      obj,
    );
    return this.#serveWrite(start, options.dryRun, () => this.#update(ref, obj, options, undefined) as T);
  }

  replaceStatus<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    obj: T,
    options: WriteOptions = {},
  ): Promise<T> {
    const start = this.#start(
      ref,
      "replace",
      options.namespace ?? obj.metadata.namespace,
      obj.metadata.name,
      obj,
      {
        subresource: "status",
      },
    );
    return this.#serveWrite(start, options.dryRun, () => this.#update(ref, obj, options, "status") as T);
  }

  patch<T extends KubeObject = KubeObject>(
    ref: ResourceRef<T>,
    name: string,
    patch: unknown,
    options: PatchOptions,
  ): Promise<T> {
    const start = this.#start(ref, "patch", options.namespace, name, patch, {
      subresource: options.subresource,
      patchType: options.type,
    });
    return this.#serveWrite(start, options.dryRun, () => {
      const namespace = this.#ns(ref, options.namespace);
      this.#record("patch", ref, namespace, name, {
        ...(options.subresource ? { subresource: options.subresource } : {}),
        patchType: options.type,
      });
      if (options.type === "apply" && !options.fieldManager) {
        throw new TypeError("Server-side apply needs a fieldManager");
      }
      const current = this.#resource(ref).objects.get(key(name, namespace));
      if (!current) {
        if (options.type !== "apply" || options.subresource) throw notFound(ref, name);
        this.#refuseInTerminating(ref, namespace, name);
        const created = applyConfiguration({}, patch) as UnstructuredObject;
        const { status: _dropped, ...rest } = created;
        const stored = this.#stamp(
          ref,
          { ...rest, metadata: { ...rest.metadata, name } } as KubeObject,
          namespace,
          options.dryRun,
        );
        if (!options.dryRun) {
          this.#put(ref, stored, undefined);
          this.#applied.set(stored.metadata.uid!, new Map([[options.fieldManager!, appliedPaths(patch)]]));
        }
        return structuredClone(stored) as T;
      }
      let next: KubeObject;
      try {
        next = (options.type === "json"
          ? applyJsonPatch(current, patch)
          : options.type === "apply"
          ? this.#applyAs(options.fieldManager!, current, patch, options.dryRun ?? false)
          : applyMergePatch(current, patch)) as KubeObject;
      } catch (error) {
        throw error instanceof RangeError ? invalid(ref, name, error.message) : error;
      }
      const expected = (patch as { metadata?: { resourceVersion?: unknown } } | null)?.metadata
        ?.resourceVersion;
      if (typeof expected === "string" && expected !== current.metadata.resourceVersion) {
        throw conflict(ref, name);
      }
      return this.#commit(
        ref,
        current as UnstructuredObject,
        next as UnstructuredObject,
        options.subresource,
        options.dryRun ?? false,
      ) as T;
    });
  }

  delete(ref: ResourceRef, name: string, options: DeleteOptions = {}): Promise<void> {
    const body = {
      apiVersion: "v1",
      kind: "DeleteOptions",
      ...(options.preconditions ? { preconditions: options.preconditions } : {}),
    };
    const start = this.#start(ref, "delete", options.namespace, name, body);
    return this.#serveWrite(start, options.dryRun, () => {
      const namespace = this.#ns(ref, options.namespace);
      this.#record("delete", ref, namespace, name);
      const current = this.#existing(ref, name, namespace);
      const pre = options.preconditions;
      if (
        (pre?.uid !== undefined && pre.uid !== current.metadata.uid) ||
        (pre?.resourceVersion !== undefined && pre.resourceVersion !== current.metadata.resourceVersion)
      ) {
        throw conflict(ref, name);
      }
      if (options.dryRun) return undefined;
      // The server's answer: the object while finalizers keep it, else a Status naming what went.
      return structuredClone(this.#delete(ref, current)) ?? {
        apiVersion: "v1",
        kind: "Status",
        metadata: {},
        status: "Success",
        details: { name, group: ref.group, kind: ref.plural, uid: current.metadata.uid },
      };
    }).then(() => undefined);
  }

  watch(ref: ResourceRef, options: RawWatchOptions): Promise<ReadableStream<Uint8Array>> {
    return this.#serve(() => {
      const namespace = ref.namespaced ? options.namespace : undefined;
      this.#record("watch", ref, namespace);
      const resource = resourceKey(ref);
      const from = options.resourceVersion;
      if (from !== undefined && from !== "" && from !== "0" && Number(from) < this.#compactedRv) {
        throw apiError(410, "Expired", `too old resource version: ${from} (${this.#compactedRv})`, ref, "");
      }
      const matches = this.#scope(ref, { ...options, ...(namespace === undefined ? {} : { namespace }) });
      const watch: FakeWatch = new FakeWatch(
        resource,
        matches,
        options.metadataOnly ?? false,
        () => this.#watches.delete(watch),
      );
      const current = [...this.#resource(ref).objects.values()].filter((o) => watch.matches(o));
      if (options.sendInitialEvents) {
        for (const obj of current) watch.send("ADDED", obj);
        watch.send("BOOKMARK", {
          apiVersion: apiVersionOf(ref),
          kind: ref.kind,
          metadata: {
            resourceVersion: this.resourceVersion,
            annotations: { "k8s.io/initial-events-end": "true" },
          },
        });
      } else if (from === undefined || from === "" || from === "0") {
        for (const obj of current) watch.send("ADDED", obj);
      } else {
        for (const change of this.#history) if (change.rv > Number(from)) watch.deliver(change);
      }
      this.#watches.add(watch);
      return watch.stream;
    });
  }

  /** The filter of a list or watch; a malformed selector is a 400 BadRequest, as from the server. */
  #scope(ref: ResourceRef, options: RawWatchOptions & { namespace?: string }): (obj: KubeObject) => boolean {
    try {
      return scopeMatcher(options);
    } catch (error) {
      throw error instanceof InvalidSelectorError
        ? apiError(400, "BadRequest", error.message, ref, "")
        : error;
    }
  }

  /** `current` with `config` applied by `manager`: the fields it applied before and left out now removed. */
  #applyAs(manager: string, current: KubeObject, config: unknown, dryRun: boolean): KubeObject {
    const uid = current.metadata.uid ?? "";
    const byManager = this.#applied.get(uid) ?? new Map<string, string[]>();
    const now = appliedPaths(config);
    const dropped = (byManager.get(manager) ?? []).filter((p) => !now.includes(p));
    const next = applyConfiguration(current, config) as KubeObject;
    removePaths(next, dropped);
    if (!dryRun) this.#applied.set(uid, byManager.set(manager, now));
    return next;
  }

  /** Runs `serve` as an asynchronous call: injected faults first, errors as rejections. */
  async #serve<R>(serve: () => R): Promise<R> {
    await Promise.resolve();
    return serve();
  }

  /** What a write listener is told before `verb` is served (the namespace resolved as the write will). */
  #start(
    ref: ResourceRef,
    verb: WriteStart["verb"],
    namespace: string | undefined,
    name: string | undefined,
    body: unknown,
    extra: { subresource?: string | undefined; patchType?: WriteStart["patchType"] } = {},
  ): WriteStart {
    return {
      ref,
      verb,
      namespace: this.#ns(ref, namespace),
      name,
      subresource: extra.subresource,
      patchType: extra.patchType,
      body: structuredClone(body),
    };
  }

  /**
   * `#serve` for a write: its listeners are told before, and of the answer after `beforeAnswer`; a dry
   * run is not reported.
   */
  async #serveWrite<R>(start: WriteStart, dryRun: boolean | undefined, serve: () => R): Promise<R> {
    const end = dryRun ? () => {} : this.#writes.start(start);
    let result: R;
    try {
      result = await this.#serve(serve);
      if (this.#beforeAnswer) await this.#beforeAnswer(requestOf(start));
    } catch (error) {
      end({ ok: false });
      throw error;
    }
    end({ ok: true, answer: structuredClone(result) });
    return result;
  }

  #record(
    verb: FakeVerb,
    ref: ResourceRef,
    namespace: string | undefined,
    name?: string,
    extra: { subresource?: string; patchType?: string } = {},
  ): void {
    const request: FakeRequest = {
      verb,
      resource: ref.plural,
      ...(namespace === undefined ? {} : { namespace }),
      ...(name === undefined ? {} : { name }),
      ...extra,
    };
    this.requests.push(request);
    const at = this.#faults.findIndex(({ fault }) =>
      (fault.verb === undefined || fault.verb === request.verb) &&
      (fault.resource === undefined || fault.resource === request.resource) &&
      (fault.name === undefined || fault.name === request.name)
    );
    const hit = this.#faults[at];
    if (!hit) return;
    if (--hit.left <= 0) this.#faults.splice(at, 1);
    throw hit.fault.error;
  }

  #update(
    ref: ResourceRef,
    obj: KubeObject,
    options: WriteOptions,
    subresource: "status" | undefined,
  ): KubeObject {
    const name = obj.metadata.name;
    if (!name) throw new TypeError("Cannot replace an object without metadata.name");
    const namespace = this.#ns(ref, options.namespace ?? obj.metadata.namespace);
    this.#record("update", ref, namespace, name, subresource ? { subresource } : {});
    const current = this.#existing(ref, name, namespace);
    const expected = obj.metadata.resourceVersion;
    if (expected !== undefined && expected !== current.metadata.resourceVersion) throw conflict(ref, name);
    return this.#commit(
      ref,
      current as UnstructuredObject,
      structuredClone(obj) as UnstructuredObject,
      subresource,
      options.dryRun ?? false,
    );
  }

  /** Validates and stores a new version of `current`; returns a copy of what was stored. */
  #commit(
    ref: ResourceRef,
    current: UnstructuredObject,
    next: UnstructuredObject,
    subresource: string | undefined,
    dryRun: boolean,
  ): KubeObject {
    const base = subresource === "status"
      ? { ...structuredClone(current), status: structuredClone(next.status) }
      : { ...next, status: structuredClone(current.status) };
    if (base.status === undefined) delete base.status;
    const m = current.metadata;
    const metadata = subresource === "status" ? { ...m } : { ...next.metadata };
    // Identity and server-managed fields cannot be changed by a client.
    Object.assign(metadata, {
      name: m.name,
      uid: m.uid,
      creationTimestamp: m.creationTimestamp,
      ...(m.namespace === undefined ? {} : { namespace: m.namespace }),
      ...(m.deletionTimestamp === undefined ? {} : { deletionTimestamp: m.deletionTimestamp }),
      ...(m.deletionGracePeriodSeconds === undefined
        ? {}
        : { deletionGracePeriodSeconds: m.deletionGracePeriodSeconds }),
      generation: (m.generation ?? 1) + (specChanged(current, base) ? 1 : 0),
    });
    if (m.deletionTimestamp === undefined) delete metadata.deletionTimestamp;
    if (m.deletionGracePeriodSeconds === undefined) delete metadata.deletionGracePeriodSeconds;
    if (m.deletionTimestamp && (metadata.finalizers?.length ?? 0) > (m.finalizers?.length ?? 0)) {
      const added = (metadata.finalizers ?? []).filter((f) => !(m.finalizers ?? []).includes(f));
      if (added.length > 0) {
        throw invalid(ref, m.name ?? "", `no new finalizers can be added if the object is being deleted`);
      }
    }
    const stored = { ...base, metadata } as KubeObject;
    if (dryRun) return structuredClone(stored);
    if (sameJson(stored, current)) return structuredClone(current); // a no-op write keeps the version
    stored.metadata.resourceVersion = String(++this.#rv);
    if (stored.metadata.deletionTimestamp && !deletionHeld(ref, stored)) {
      this.#remove(ref, stored);
    } else {
      this.#put(ref, stored, current);
    }
    return structuredClone(stored);
  }

  /**
   * Deletes `current`, or marks it for deletion while finalizers hold it (returned then). A Namespace is
   * held by the namespace controller's finalizer in its spec: marked Terminating, then finished.
   */
  #delete(ref: ResourceRef, current: KubeObject): KubeObject | undefined {
    if (deletionHeld(ref, current)) {
      if (current.metadata.deletionTimestamp) return current;
      const marked = isNamespaces(ref) ? terminatingNamespace(current) : structuredClone(current);
      marked.metadata.deletionTimestamp = formatTime(this.#clock.now());
      if (!isNamespaces(ref)) marked.metadata.deletionGracePeriodSeconds = 0;
      marked.metadata.resourceVersion = String(++this.#rv);
      this.#put(ref, marked, current);
      if (isNamespaces(ref)) this.#finishNamespace(marked.metadata.name ?? "");
      return marked;
    }
    this.#remove(ref, { ...current, metadata: { ...current.metadata, resourceVersion: String(++this.#rv) } });
    return undefined;
  }

  #remove(ref: ResourceRef, last: KubeObject): void {
    const resource = this.#resource(ref);
    resource.objects.delete(keyOf(last));
    this.#emit({ rv: this.#rv, resource: resourceKey(ref), type: "DELETED", object: last });
    if (this.#gc && last.metadata.uid) this.#collect(last.metadata.uid);
    if (ref.namespaced && last.metadata.namespace) this.#finishNamespace(last.metadata.namespace);
  }

  /**
   * The namespace controller's work on a terminating Namespace: deletes its content (finalizers respected),
   * and once none is left, removes its finalizer from the spec (the Namespace goes unless metadata
   * finalizers still hold it). Runs again whenever content of a terminating Namespace goes.
   */
  #finishNamespace(name: string): void {
    const namespaces = this.#resource(NAMESPACES).objects;
    if (!namespaces.get(name)?.metadata.deletionTimestamp || this.#finishing.has(name)) return;
    this.#finishing.add(name); // removals below come back here: the outer call finishes
    let left = false;
    try {
      for (const r of [...this.#resources.values()].filter((r) => r.ref.namespaced)) {
        for (const k of [...r.objects.keys()].filter((k) => k.startsWith(`${name}/`))) {
          const live = r.objects.get(k);
          if (live && this.#delete(r.ref, live)) left = true;
        }
      }
    } finally {
      this.#finishing.delete(name);
    }
    const ns = namespaces.get(name);
    if (left || !ns || !deletionHeld(NAMESPACES, ns)) return;
    const done = finalizedNamespace(ns);
    if (sameJson(done, ns)) return;
    done.metadata.resourceVersion = String(++this.#rv);
    if (deletionHeld(NAMESPACES, done)) this.#put(NAMESPACES, done, ns);
    else this.#remove(NAMESPACES, done);
  }

  /** 403 Forbidden for a create in a terminating Namespace, as the server's admission answers. */
  #refuseInTerminating(ref: ResourceRef, namespace: string | undefined, name: string): void {
    if (
      namespace === undefined ||
      !this.#resource(NAMESPACES).objects.get(namespace)?.metadata.deletionTimestamp
    ) {
      return;
    }
    throw apiError(
      403,
      "Forbidden",
      `${ref.plural} "${name}" is forbidden: unable to create new content in namespace ${namespace} because ` +
        "it is being terminated",
      ref,
      name,
    );
  }

  /** Background garbage collection: dependents whose owners are all gone are deleted. */
  #collect(uid: string): void {
    const alive = new Set<string>();
    for (const r of this.#resources.values()) {
      for (const o of r.objects.values()) if (o.metadata.uid) alive.add(o.metadata.uid);
    }
    for (const r of this.#resources.values()) {
      for (const o of [...r.objects.values()]) {
        const owners = o.metadata.ownerReferences ?? [];
        if (owners.some((x) => x.uid === uid) && owners.every((x) => !alive.has(x.uid))) {
          this.#delete(r.ref, o);
        }
      }
    }
  }

  #put(ref: ResourceRef, obj: KubeObject, old: KubeObject | undefined): void {
    this.#resource(ref).objects.set(keyOf(obj), obj);
    const rv = Number(obj.metadata.resourceVersion);
    this.#emit({
      rv,
      resource: resourceKey(ref),
      type: old ? "MODIFIED" : "ADDED",
      object: obj,
      ...(old ? { old } : {}),
    });
  }

  #emit(change: Change): void {
    this.#history.push(change);
    for (const watch of this.#watches) watch.deliver(change);
  }

  /**
   * `obj` with the server-assigned metadata filled in and a new resourceVersion; a dry run gets none and
   * leaves the counter alone, as nothing is written.
   */
  #stamp(ref: ResourceRef, obj: KubeObject, namespace: string | undefined, dryRun = false): KubeObject {
    const { resourceVersion: _replaced, ...given } = obj.metadata;
    const metadata = {
      ...given,
      ...(namespace === undefined ? {} : { namespace }),
      uid: obj.metadata.uid ?? crypto.randomUUID(),
      creationTimestamp: obj.metadata.creationTimestamp ?? formatTime(this.#clock.now()),
      generation: obj.metadata.generation ?? 1,
      ...(dryRun ? {} : { resourceVersion: String(++this.#rv) }),
    };
    if (!ref.namespaced) delete metadata.namespace;
    if (isNamespaces(ref)) obj = withNamespaceDefaults(obj);
    return { ...obj, apiVersion: obj.apiVersion ?? apiVersionOf(ref), kind: obj.kind ?? ref.kind, metadata };
  }

  #existing(ref: ResourceRef, name: string, namespace: string | undefined): KubeObject {
    const found = this.#resource(ref).objects.get(key(name, namespace));
    if (!found) throw notFound(ref, name);
    return found;
  }

  #resource(ref: ResourceRef): Resource {
    const k = resourceKey(ref);
    let r = this.#resources.get(k);
    if (!r) this.#resources.set(k, r = { ref, objects: new Map() });
    return r;
  }

  #ns(ref: ResourceRef, namespace: string | undefined): string | undefined {
    return ref.namespaced ? namespace ?? this.#namespace : undefined;
  }
}

/** The FakeRequest a write's start describes. */
function requestOf(start: WriteStart): FakeRequest {
  const verbs = { create: "create", replace: "update", patch: "patch", delete: "delete" } as const;
  return {
    verb: verbs[start.verb],
    resource: start.ref.plural,
    ...(start.namespace === undefined ? {} : { namespace: start.namespace }),
    ...(start.name === undefined ? {} : { name: start.name }),
    ...(start.subresource === undefined ? {} : { subresource: start.subresource }),
    ...(start.patchType === undefined ? {} : { patchType: start.patchType }),
  };
}

function resourceKey(ref: ResourceRef): string {
  return `${ref.group}/${ref.plural}`;
}

function key(name: string, namespace: string | undefined): string {
  return namespace ? `${namespace}/${name}` : name;
}

function keyOf(obj: KubeObject): string {
  return key(obj.metadata.name ?? "", obj.metadata.namespace);
}

function generated(prefix: string | undefined): string | undefined {
  return prefix ? prefix + crypto.randomUUID().slice(0, 5) : undefined;
}

/** True when anything besides metadata and status differs (what bumps metadata.generation). */
function specChanged(a: KubeObject, b: KubeObject): boolean {
  const strip = ({ metadata: _m, status: _s, ...rest }: UnstructuredObject) => rest;
  return !sameJson(strip(a as UnstructuredObject), strip(b as UnstructuredObject));
}

function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function apiError(code: number, reason: string, message: string, ref: ResourceRef, name: string): ApiError {
  const status: Status = {
    apiVersion: "v1",
    kind: "Status",
    status: "Failure",
    code,
    reason,
    message,
    details: { name, group: ref.group, kind: ref.plural },
  };
  return new ApiError(status);
}

function notFound(ref: ResourceRef, name: string): ApiError {
  return apiError(404, "NotFound", `${ref.plural} "${name}" not found`, ref, name);
}

function conflict(ref: ResourceRef, name: string): ApiError {
  return apiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${ref.plural} "${name}": the object has been modified; please apply ` +
      "your changes to the latest version and try again",
    ref,
    name,
  );
}

function invalid(ref: ResourceRef, name: string, message: string): ApiError {
  return apiError(422, "Invalid", `${ref.kind} "${name}" is invalid: ${message}`, ref, name);
}
