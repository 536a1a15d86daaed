import type { ResourceRef } from "../resources/object.ts";
import type { ObjectReference } from "../resources/core_v1.ts";
import type { Event, EventSeries } from "../resources/events_v1.ts";

export type { Event, EventSeries, ObjectReference };

/** Event severity. */
export type EventType = "Normal" | "Warning";

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
  signal?: AbortSignal | undefined;
}

/** What the recorder needs from the API client; `KubeClient` satisfies it. */
export interface EventsClient {
  /** Creates an Event. */
  create(ref: ResourceRef<Event>, obj: Event, options?: EventRequestOptions): Promise<Event>;
  /** Merge-patches an Event (used to update `series`). */
  patch(
    ref: ResourceRef<Event>,
    name: string,
    patch: unknown,
    options: EventRequestOptions & { type: "merge" },
  ): Promise<Event>;
}
