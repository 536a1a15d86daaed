import type { KubeObject, ObjectMeta, ResourceRef } from "../client/types.ts";

/** `core/v1.ObjectReference`: the object an Event is about. */
export interface ObjectReference {
  /** API version of the object. */
  apiVersion?: string;
  /** Kind of the object. */
  kind?: string;
  /** Object name. */
  name?: string;
  /** Namespace; omitted for cluster-scoped objects. */
  namespace?: string;
  /** UID of the object. */
  uid?: string;
  /** resourceVersion observed. */
  resourceVersion?: string;
  /** Part of the object, e.g. a container. */
  fieldPath?: string;
}

/** Event severity. */
export type EventType = "Normal" | "Warning";

/** `events.k8s.io/v1.EventSeries`: how often an isomorphic event repeated. */
export interface EventSeries {
  /** Occurrences so far, including the first. */
  count: number;
  /** MicroTime of the latest repeat. */
  lastObservedTime: string;
}

/** An `events.k8s.io/v1` Event (the fields this project writes). */
export interface EventV1 extends KubeObject {
  /** Object metadata. */
  metadata: ObjectMeta;
  /** MicroTime of the first occurrence. */
  eventTime: string;
  /** Repeat count, when the event repeated. */
  series?: EventSeries;
  /** Controller that emitted the event. */
  reportingController: string;
  /** Instance (pod) that emitted it. */
  reportingInstance: string;
  /** What was done or failed. */
  action: string;
  /** Machine-readable reason. */
  reason: string;
  /** The object the event is about. */
  regarding: ObjectReference;
  /** A second object involved. */
  related?: ObjectReference;
  /** Human-readable message. */
  note?: string;
  /** Normal or Warning. */
  type: EventType;
}

/** Per-request options the recorder passes to the client. */
export interface EventRequestOptions {
  /**
   * Namespace; omitted for cluster-scoped objects.
   * @default {cluster-scoped}
   */
  namespace?: string;
  /**
   * Aborts the request.
   * @default {never aborted}
   */
  signal?: AbortSignal;
}

/** What the recorder needs from the API client; `KubeClient` satisfies it. */
export interface EventsClient {
  /** Creates an Event. */
  create(ref: ResourceRef, obj: EventV1, options?: EventRequestOptions): Promise<EventV1>;
  /** Merge-patches an Event (used to update `series`). */
  patch(
    ref: ResourceRef,
    name: string,
    patch: unknown,
    options: EventRequestOptions & { type: "merge" },
  ): Promise<EventV1>;
}
