import type { KubeObject, Status } from "../resources/object.ts";

/** The annotation the API server puts on the bookmark that ends a streaming list's initial events. */
export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

/** The object of a BOOKMARK event: only the resourceVersion (and annotations) are meaningful. */
export interface BookmarkObject {
  /** The kind of the watched resource. */
  kind?: string;
  /** The apiVersion of the watched resource. */
  apiVersion?: string;
  /** The resourceVersion to resume from, and the initial-events-end annotation. */
  metadata: { resourceVersion?: string; annotations?: Record<string, string> };
}

/** One event of the watch wire protocol, as the API server sends it (one JSON object per line). */
export type RawWatchEvent<T extends KubeObject = KubeObject> =
  | { type: "ADDED"; object: T }
  | { type: "MODIFIED"; object: T }
  | { type: "DELETED"; object: T }
  | { type: "BOOKMARK"; object: BookmarkObject }
  | { type: "ERROR"; object: Status };

/** The `type` values of {@linkcode RawWatchEvent}. */
export type RawWatchEventType = RawWatchEvent["type"];

/** True for the bookmark that marks the end of the initial events of a streaming list. */
export function isInitialEventsEnd(event: RawWatchEvent<KubeObject>): boolean {
  return event.type === "BOOKMARK" &&
    event.object.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === "true";
}
