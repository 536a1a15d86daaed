/**
 * The watcher's transitions while a streaming list (a watch with `sendInitialEvents=true`) delivers
 * the initial state, including the "auto" strategy's one-way fallback to paged lists. Internal: called
 * only from `step` in `watcher_state.ts`, which stays the single entry point.
 * @module
 */
import { ApiError, isGoneStatus } from "../client/api_error.ts";
import type { KubeObject, Status } from "../resources/object.ts";
import { errorEvent, isGone, relist, to } from "./_watcher_transition.ts";
import { assertNever, isInitialEventsEnd, type WatchEvent } from "./watch_event.ts";
import type { WatcherEvent } from "./watcher_event.ts";
import type { WatcherInput, WatcherPhase, WatcherState, WatcherTransition } from "./watcher_state.ts";

type StreamingPhase = Extract<WatcherPhase, { kind: "initStreaming" }>;

/** The inputs a streaming list can receive (list answers cannot happen in this phase). */
export type StreamingInput<T extends KubeObject> = Exclude<
  WatcherInput<T>,
  { kind: "listed" } | { kind: "listFailed" }
>;

/** One transition in the `initStreaming` phase. Pure. */
export function stepInitStreaming<T extends KubeObject>(
  state: WatcherState,
  p: StreamingPhase,
  input: StreamingInput<T>,
): WatcherTransition<T> {
  const auto = state.strategy === "auto";
  switch (input.kind) {
    case "watchOpened":
      return to(state, { ...p, open: true, started: false });
    case "watchFailed":
      if (isGone(input.error)) return relist(state, "watch answered 410 Gone; listing again from scratch");
      if (auto && rejectsStreaming(statusOf(input.error))) {
        return fallBack(`the server rejected it (${errorText(input.error)})`);
      }
      return { state, events: [errorEvent(input.error)] };
    case "event":
      return onInitEvent(state, p, input.event);
    case "streamEnded":
      if (auto) return fallBack("the stream ended before initial-events-end");
      return restartStream(state, p, new Error("Watch stream ended before the initial-events-end bookmark"));
    case "streamFailed":
      return restartStream(state, p, input.error);
    default:
      return assertNever(input, "watcher input");
  }
}

function onInitEvent<T extends KubeObject>(
  state: WatcherState,
  p: StreamingPhase,
  event: WatchEvent<T>,
): WatcherTransition<T> {
  const auto = state.strategy === "auto";
  const events: WatcherEvent<T>[] = p.started ? [] : [{ type: "init" }];
  const started = { ...state, phase: { ...p, started: true } };
  switch (event.type) {
    case "ADDED":
    case "MODIFIED":
      events.push({ type: "initApply", object: event.object });
      return { state: started, events };
    case "BOOKMARK": {
      if (isInitialEventsEnd(event)) {
        const rv = event.object.metadata.resourceVersion ?? "";
        events.push({ type: "initDone", resourceVersion: rv });
        const strategy = auto ? "stream" : state.strategy;
        return { state: { strategy, phase: { kind: "watching", resourceVersion: rv } }, events };
      }
      if (auto && !p.started) return fallBack("the first event was a bookmark without initial-events-end");
      return { state: started, events };
    }
    case "DELETED":
      if (auto) return fallBack("a DELETED event arrived among the initial events");
      return restartStream(state, p, new Error("Watch sent DELETED before the initial-events-end bookmark"));
    case "ERROR":
      if (isGoneStatus(event.object)) return relist(state, "watch sent ERROR 410 Gone; listing again");
      if (auto && rejectsStreaming(event.object)) {
        return fallBack(`the server rejected it (${event.object.message ?? event.object.code})`);
      }
      return restartStream(state, p, new ApiError(event.object));
    default:
      return assertNever(event, "watch event");
  }
}

/** Closes the stream and starts the streaming list over, yielding `error` so the backoff applies. */
function restartStream<T extends KubeObject>(
  state: WatcherState,
  p: StreamingPhase,
  error: unknown,
): WatcherTransition<T> {
  return to(state, { ...p, open: false, started: false }, [errorEvent(error)]);
}

/** "auto" gives up on streaming lists for good. */
function fallBack<T extends KubeObject>(why: string): WatcherTransition<T> {
  return {
    state: { strategy: "paged", phase: { kind: "empty" } },
    events: [],
    notice: `Streaming list not usable (${why}); using paged lists from now on`,
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function statusOf(error: unknown): Status | undefined {
  if (error instanceof ApiError) {
    return error.status.code ? error.status : { ...error.status, code: error.code };
  }
  return undefined;
}

/** Answers that mean "this server does not do streaming lists" (old server, feature gate off, policy). */
function rejectsStreaming(status: Status | undefined): boolean {
  if (!status) return false;
  if (status.code !== undefined && [400, 403, 405, 422, 501].includes(status.code)) return true;
  return /not supported|sendInitialEvents|resourceVersionMatch|WatchList/i.test(status.message ?? "");
}
