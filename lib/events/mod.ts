/**
 * `events.k8s.io/v1` Event recording with series aggregation and a per-object spam filter.
 * @module
 */
export {
  type EventInfo,
  EventRecorder,
  type EventRecorderOptions,
  type EventSink,
  type FlushOptions,
} from "./recorder.ts";
export { SpamFilter, type SpamFilterOptions } from "./spam_filter.ts";
export {
  type Event,
  type EventRequestOptions,
  type EventsClient,
  type EventSeries,
  type EventType,
  type ObjectReference,
} from "./types.ts";
export type { KubeObject, ObjectMeta, ResourceRef } from "../resources/object.ts";
export type { Logger } from "../log/logger.ts";
export type { Clock } from "../time/clock.ts";
