/**
 * Read-your-writes for one informer: the answer of each write of its resource goes into the store when it
 * arrives, ordered by resourceVersion against the watch (see StoreWriter), and the change it makes is told
 * apart from everyone else's, so the controller that wrote it can skip it.
 *
 * The watch event of a write (its echo) often arrives before the write's answer (on a loaded kube-apiserver
 * we saw it first in 18 of 30 writes). So while a write to a key is in flight, the changes to that key are
 * applied to the store at once but handed to subscribers only when the write ends: then the echo can be
 * recognised by its resourceVersion and attributed to the write. Other keys are not held up.
 * @module
 */
import { currentWriter, type WriteOrigin } from "../_internal/write_origin.ts";
import { isRecord } from "../_internal/json_equal.ts";
import { objectKey } from "../client/paths.ts";
import type { WriteEnd, WriteListener, WriteStart } from "../client/write_listener.ts";
import type { KubeObject } from "../resources/object.ts";
import { isOwnChange } from "./_write_attribution.ts";
import { resourceName } from "./resource_name.ts";
import { fieldSelectorMatcher, labelSelectorMatcher } from "./selector_match.ts";
import type { StoreChange, StoreWriter } from "./store_writer.ts";

/** What a WriteThrough needs from its informer. */
export interface WriteThroughOptions<T extends KubeObject> {
  /** "group/version/plural" of the informer's resource (writes to other versions are not taken). */
  readonly resource: string;
  /** The informer's namespace, if it watches one. */
  readonly namespace?: string | undefined;
  /** The informer's label selector. */
  readonly labelSelector?: string | undefined;
  /** The informer's field selector. */
  readonly fieldSelector?: string | undefined;
  /** Whether the informer caches PartialObjectMetadata. */
  readonly metadataOnly?: boolean | undefined;
  /** The informer's partition share, when it has one: a write of an object outside it is not cached. */
  readonly inShare?: ((object: KubeObject) => boolean) | undefined;
  /** The informer's store writer. */
  readonly writer: StoreWriter<T>;
  /** The informer's transform (managedFields stripping, the user's transform, freezing). */
  readonly transform: (object: T) => T;
  /** Hands a change to the subscribers. */
  readonly emit: (change: StoreChange<T>) => void;
  /** Told of an error taking an answer in; the write's change then goes on untagged, or by the watch. */
  readonly onError: (error: unknown) => void;
}

/** A write that ended, with what its answer says. */
interface Ended {
  readonly write: WriteStart;
  readonly origin: WriteOrigin | undefined;
  /** uid and resourceVersion of the object the answer holds. */
  uid?: string | undefined;
  rv?: string | undefined;
  /** uid of the object the write deleted. */
  goneUid?: string;
}

interface Flight<T extends KubeObject> {
  count: number;
  readonly held: StoreChange<T>[];
  readonly ended: Ended[];
}

/** See the module doc. */
export class WriteThrough<T extends KubeObject> {
  readonly #o: WriteThroughOptions<T>;
  /** Whether an object is in the informer's scope; undefined when that cannot be told (field selectors). */
  readonly #inScope: ((object: KubeObject) => boolean) | undefined;
  readonly #flights = new Map<string, Flight<T>>();

  /** Read-your-writes over `options.writer`. */
  constructor(options: WriteThroughOptions<T>) {
    this.#o = options;
    let inScope: ((object: KubeObject) => boolean) | undefined;
    try {
      const labels = labelSelectorMatcher(options.labelSelector ?? "");
      const fields = fieldSelectorMatcher(options.fieldSelector ?? "");
      const share = options.inShare;
      inScope = (object) =>
        labels(object.metadata.labels ?? {}) && fields(object) && (share?.(object) ?? true);
    } catch {
      inScope = undefined; // a selector we cannot evaluate: the watch alone decides what is cached
    }
    this.#inScope = inScope;
  }

  /** The listener to register with the write source. */
  readonly listener: WriteListener = (write) => this.#started(write);

  /** A change the watch or a list made: handed on now, or held while a write to its key is in flight. */
  changed(change: StoreChange<T>): void {
    const flight = this.#flights.get(objectKey(change.object));
    if (flight) flight.held.push(change);
    else this.#o.emit(change);
  }

  #started(write: WriteStart): ((end: WriteEnd) => void) | undefined {
    if (resourceName(write.ref) !== this.#o.resource) return undefined;
    if (this.#o.namespace !== undefined && write.namespace !== this.#o.namespace) return undefined;
    const origin = currentWriter();
    const key = write.name === undefined ? undefined : objectKey({
      metadata: { name: write.name, ...(write.namespace ? { namespace: write.namespace } : {}) },
    });
    if (key !== undefined) {
      let flight = this.#flights.get(key);
      if (!flight) this.#flights.set(key, flight = { count: 0, held: [], ended: [] });
      flight.count++;
      this.#o.writer.track(key);
    }
    return (end) => this.#ended(key, { write, origin }, end);
  }

  #ended(key: string | undefined, ended: Ended, end: WriteEnd): void {
    let change: StoreChange<T> | undefined;
    try {
      change = end.ok ? this.#writeThrough(key, ended, end.answer) : undefined;
    } catch (error) {
      this.#o.onError(error); // never left holding the key's changes
    }
    if (change) {
      const flight = this.#flights.get(objectKey(change.object));
      if (flight) flight.held.push(change);
      else this.#o.emit(this.#attributed(change, [ended])); // a create by generateName: no key before
    }
    if (key === undefined) return;
    this.#o.writer.untrack(key);
    const flight = this.#flights.get(key);
    if (!flight) return;
    flight.ended.push(ended);
    if (--flight.count > 0) return;
    this.#flights.delete(key);
    for (const held of flight.held) this.#o.emit(this.#attributed(held, flight.ended));
  }

  /** Puts the answer into the store; returns the change it made, if any. */
  #writeThrough(key: string | undefined, ended: Ended, answer: unknown): StoreChange<T> | undefined {
    if (!isRecord(answer)) return undefined;
    const writer = this.#o.writer;
    if (answer.kind === "Status") {
      // A delete without finalizers: the server answers with a Status naming the uid it deleted.
      const uid = isRecord(answer.details) ? answer.details.uid : undefined;
      if (ended.write.verb !== "delete" || typeof uid !== "string" || key === undefined) return undefined;
      ended.goneUid = uid;
      return writer.writeDeleted(key, uid);
    }
    if (!isRecord(answer.metadata)) return undefined;
    const object = answer as unknown as T;
    const uid = object.metadata.uid;
    if (isGone(object, ended.write)) {
      if (uid === undefined) return undefined;
      ended.goneUid = uid;
      return writer.writeDeleted(objectKey(object), uid);
    }
    ended.uid = uid;
    ended.rv = object.metadata.resourceVersion;
    if (!this.#inScope?.(object)) return undefined;
    return writer.write(this.#o.transform(this.#o.metadataOnly ? partialMetadataOf(object) : object));
  }

  /** `change`, tagged with the origin of the write whose own doing it is alone (see isOwnChange). */
  #attributed(change: StoreChange<T>, ended: readonly Ended[]): StoreChange<T> {
    const { uid, resourceVersion } = change.object.metadata;
    const by = ended.find((e) =>
      change.type === "delete"
        ? e.goneUid !== undefined && e.goneUid === uid
        : e.rv !== undefined && e.rv === resourceVersion && e.uid === uid
    );
    if (!by?.origin) return change;
    let own = false;
    try {
      own = change.type === "delete" ||
        isOwnChange(change.type === "update" ? change.oldObject : undefined, change.object, by.write);
    } catch (error) {
      this.#o.onError(error); // untagged: the writer reconciles once more, nothing is lost
    }
    return own ? { ...change, origin: by.origin } : change;
  }
}

/**
 * True when the answer says the object no longer exists: its last finalizer went while it was being
 * deleted (no grace period left), or a delete answered with the object's last state. A Namespace's
 * deletion is held by `spec.finalizers` (the namespace controller's "kubernetes"), not by metadata's:
 * kube-apiserver answers its delete with the marked, Terminating object and no metadata finalizers. Any
 * non-empty `spec.finalizers` counts as holding (a doubt leaves the object to the watch's DELETED).
 */
function isGone(object: KubeObject, write: WriteStart): boolean {
  const m = object.metadata;
  if (m.deletionTimestamp === undefined) return write.verb === "delete";
  const grace = m.deletionGracePeriodSeconds;
  return (m.finalizers?.length ?? 0) === 0 && (grace === undefined || grace === 0) &&
    !heldBySpecFinalizers(object);
}

/** True when `object.spec.finalizers` is a non-empty list (a Namespace whose content is being deleted). */
function heldBySpecFinalizers(object: KubeObject): boolean {
  const spec = (object as { readonly spec?: unknown }).spec;
  return isRecord(spec) && Array.isArray(spec.finalizers) && spec.finalizers.length > 0;
}

/** `object` as a metadata-only list or watch sends it. */
function partialMetadataOf<T extends KubeObject>(object: T): T {
  return { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: object.metadata } as T;
}
