/**
 * Watching: the wire decoder (bytes → {@linkcode RawWatchEvent}), the list-then-watch state machine
 * ({@linkcode watcher}, yielding {@linkcode WatcherEvent}s) and the backoff policy that wraps it.
 * @module
 */
// Re-exported so this module's documentation is self-contained.
export type {
  KubeObject,
  ListMeta,
  ObjectList,
  ObjectMeta,
  OwnerReference,
  ResourceRef,
  Status,
} from "../resources/object.ts";
export type { ListOptions, RawWatchOptions, RequestOptions, SelectorOptions } from "../client/types.ts";
export type { LogFields, Logger } from "../log/logger.ts";
export type { Clock, Timer } from "../time/clock.ts";
export { Backoff, type BackoffOptions, withBackoff, type WithBackoffOptions } from "./backoff.ts";
export type { ListWatcher } from "./list_watcher.ts";
export { WatchDecodeError, type WatchDecodeErrorReason } from "./watch_decode_error.ts";
export { WatchDecoderStream } from "./watch_decoder_stream.ts";
export {
  type BookmarkObject,
  INITIAL_EVENTS_END_ANNOTATION,
  isInitialEventsEnd,
  type RawWatchEvent,
  type RawWatchEventType,
} from "./watch_event.ts";
export { type WatchDecoderOptions, WatchEventDecoder } from "./watch_event_decoder.ts";
export { WatchDeadlineError } from "./watch_deadline_error.ts";
export { WatchEndedEarlyError } from "./watch_ended_early_error.ts";
export { WatchIdleTimeoutError } from "./watch_idle_timeout_error.ts";
export { watcher, type WatcherHooks, type WatcherOptions } from "./watcher.ts";
export type { WatcherEvent } from "./watcher_event.ts";
export type { InitialListMode } from "./watcher_state.ts";
