import { ApiError } from "../client/api_error.ts";
import type { KubeObject, ObjectList, Status } from "../client/types.ts";
import { assertNever, isInitialEventsEnd, type WatchEvent } from "./watch_event.ts";
import type { WatcherEvent } from "./watcher_event.ts";

/**
 * How the watcher gets the initial state: "paged" lists in pages then watches; "stream" asks for a
 * streaming list (a watch with `sendInitialEvents=true`); "auto" tries streaming and falls back to
 * paged for good when the server rejects it.
 */
export type InitialListMode = "auto" | "stream" | "paged";

/**
 * Where the watcher is. `listResourceVersion` is the RV for the next full list: "0" (served from the
 * API server's watch cache) at start, unset (a consistent read) after a 410.
 */
export type WatcherPhase =
  /** Nothing listed yet; the next action lists the first page. */
  | { kind: "empty"; listResourceVersion: "0" | undefined }
  /** Some pages listed; the next action lists the page at `continueToken`. */
  | { kind: "initPage"; continueToken: string }
  /** Streaming list: `open` when the watch is open, `started` once `init` was yielded for this attempt. */
  | { kind: "initStreaming"; open: boolean; started: boolean; listResourceVersion: "0" | undefined }
  /** In sync at `resourceVersion` with no watch open; the next action opens one from there. */
  | { kind: "initListed"; resourceVersion: string }
  /** A watch is open; `resourceVersion` is the newest seen (events and bookmarks). */
  | { kind: "watching"; resourceVersion: string };

/** The whole state: the phase, and the initial-list strategy ("auto" until the server has shown which works). */
export interface WatcherState {
  /** Where the watcher is. */
  readonly phase: WatcherPhase;
  /** The initial-list strategy; "auto" becomes "stream" or "paged" once the server has answered. */
  readonly strategy: InitialListMode;
}

/** The I/O the driver must perform next. */
export type WatcherAction =
  | { kind: "list"; resourceVersion?: string; continue?: string }
  | { kind: "watch"; resourceVersion?: string; sendInitialEvents: boolean }
  | { kind: "read" };

/** The result of that I/O, fed back into {@linkcode step}. */
export type WatcherInput<T extends KubeObject = KubeObject> =
  | { kind: "listed"; list: ObjectList<T> }
  | { kind: "listFailed"; error: unknown }
  | { kind: "watchOpened" }
  | { kind: "watchFailed"; error: unknown }
  | { kind: "event"; event: WatchEvent<T> }
  | { kind: "streamEnded" }
  | { kind: "streamFailed"; error: unknown };

/** The outcome of one {@linkcode step}: the next state, what to yield, and a note worth logging. */
export interface WatcherTransition<T extends KubeObject = KubeObject> {
  /** The next state. */
  readonly state: WatcherState;
  /** What to yield, in order. */
  readonly events: WatcherEvent<T>[];
  /** Something worth an info log line (relist, fallback). */
  readonly notice?: string;
}

/** The state a watcher starts in. */
export function initialState(strategy: InitialListMode): WatcherState {
  return { strategy, phase: restartPhase(strategy, "0") };
}

/** The I/O the state asks for. Pure. */
export function nextAction(state: WatcherState): WatcherAction {
  const p = state.phase;
  switch (p.kind) {
    case "empty":
      return p.listResourceVersion === undefined
        ? { kind: "list" }
        : { kind: "list", resourceVersion: p.listResourceVersion };
    case "initPage":
      // The continue token pins the snapshot; the server rejects a resourceVersion alongside it.
      return { kind: "list", continue: p.continueToken };
    case "initStreaming":
      return p.open ? { kind: "read" } : { kind: "watch", sendInitialEvents: true };
    case "initListed":
      return { kind: "watch", resourceVersion: p.resourceVersion, sendInitialEvents: false };
    case "watching":
      return { kind: "read" };
    default:
      return assertNever(p, "watcher phase");
  }
}

/** True when the phase holds an open watch stream (the driver closes its stream otherwise). */
export function streamIsOpen(state: WatcherState): boolean {
  const p = state.phase;
  return p.kind === "watching" || (p.kind === "initStreaming" && p.open);
}

/**
 * The state machine's transition function. Pure: no I/O, no clock, no randomness, so every
 * transition is tested directly.
 */
export function step<T extends KubeObject>(
  state: WatcherState,
  input: WatcherInput<T>,
): WatcherTransition<T> {
  const p = state.phase;
  switch (input.kind) {
    case "listed":
      return onListed(state, input.list);
    case "listFailed":
      if (isGone(input.error)) return relist(state, "list answered 410 Gone; listing again from scratch");
      return { state, events: [errorEvent(input.error)] };
    case "watchOpened":
      if (p.kind === "initListed") return to(state, { kind: "watching", resourceVersion: p.resourceVersion });
      if (p.kind === "initStreaming") return to(state, { ...p, open: true, started: false });
      return unexpected(state, input.kind);
    case "watchFailed":
      return onWatchFailed(state, input.error);
    case "event":
      if (p.kind === "watching") return onWatchEvent(state, p.resourceVersion, input.event);
      if (p.kind === "initStreaming") return onInitEvent(state, p, input.event);
      return unexpected(state, input.kind);
    case "streamEnded":
      if (p.kind === "watching") return to(state, { kind: "initListed", resourceVersion: p.resourceVersion });
      if (p.kind === "initStreaming") {
        if (state.strategy === "auto") {
          return fallBack(p, "the stream ended before initial-events-end");
        }
        return {
          state: { ...state, phase: { ...p, open: false, started: false } },
          events: [errorEvent(new Error("Watch stream ended before the initial-events-end bookmark"))],
        };
      }
      return unexpected(state, input.kind);
    case "streamFailed":
      if (p.kind === "watching") {
        return {
          state: { ...state, phase: { kind: "initListed", resourceVersion: p.resourceVersion } },
          events: [errorEvent(input.error)],
        };
      }
      if (p.kind === "initStreaming") {
        return {
          state: { ...state, phase: { ...p, open: false, started: false } },
          events: [errorEvent(input.error)],
        };
      }
      return unexpected(state, input.kind);
    default:
      return assertNever(input, "watcher input");
  }
}

function onListed<T extends KubeObject>(state: WatcherState, list: ObjectList<T>): WatcherTransition<T> {
  const p = state.phase;
  if (p.kind !== "empty" && p.kind !== "initPage") return unexpected(state, "listed");
  const events: WatcherEvent<T>[] = p.kind === "empty" ? [{ type: "init" }] : [];
  for (const object of list.items) events.push({ type: "initApply", object });
  const token = list.metadata.continue;
  if (token) return { state: { ...state, phase: { kind: "initPage", continueToken: token } }, events };
  const rv = list.metadata.resourceVersion;
  if (!rv) {
    events.push(errorEvent(new Error("List response has no metadata.resourceVersion")));
    return { state: { ...state, phase: { kind: "empty", listResourceVersion: undefined } }, events };
  }
  events.push({ type: "initDone", resourceVersion: rv });
  return { state: { ...state, phase: { kind: "initListed", resourceVersion: rv } }, events };
}

function onWatchFailed<T extends KubeObject>(state: WatcherState, error: unknown): WatcherTransition<T> {
  const p = state.phase;
  if (isGone(error)) return relist(state, "watch answered 410 Gone; listing again from scratch");
  if (p.kind === "initStreaming" && state.strategy === "auto" && rejectsStreaming(statusOf(error))) {
    return fallBack(p, `the server rejected it (${errorText(error)})`);
  }
  return { state, events: [errorEvent(error)] };
}

function onInitEvent<T extends KubeObject>(
  state: WatcherState,
  p: Extract<WatcherPhase, { kind: "initStreaming" }>,
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
      if (auto && !p.started) {
        return fallBack(p, "the first event was a bookmark without initial-events-end");
      }
      return { state: started, events };
    }
    case "DELETED":
      if (auto) return fallBack(p, "a DELETED event arrived among the initial events");
      return restartStream(state, p, new Error("Watch sent DELETED before the initial-events-end bookmark"));
    case "ERROR":
      if (isGoneStatus(event.object)) return relist(state, "watch sent ERROR 410 Gone; listing again");
      if (auto && rejectsStreaming(event.object)) {
        return fallBack(p, `the server rejected it (${event.object.message ?? event.object.code})`);
      }
      return restartStream(state, p, new ApiError(event.object));
    default:
      return assertNever(event, "watch event");
  }
}

function onWatchEvent<T extends KubeObject>(
  state: WatcherState,
  rv: string,
  event: WatchEvent<T>,
): WatcherTransition<T> {
  switch (event.type) {
    case "ADDED":
    case "MODIFIED":
      return to(state, watching(event.object.metadata.resourceVersion ?? rv), [{
        type: "apply",
        object: event.object,
      }]);
    case "DELETED":
      return to(state, watching(event.object.metadata.resourceVersion ?? rv), [{
        type: "delete",
        object: event.object,
      }]);
    case "BOOKMARK":
      return to(state, watching(event.object.metadata.resourceVersion ?? rv));
    case "ERROR":
      if (isGoneStatus(event.object)) return relist(state, "watch sent ERROR 410 Gone; listing again");
      return to(state, { kind: "initListed", resourceVersion: rv }, [errorEvent(new ApiError(event.object))]);
    default:
      return assertNever(event, "watch event");
  }
}

function watching(resourceVersion: string): WatcherPhase {
  return { kind: "watching", resourceVersion };
}

function to<T extends KubeObject>(
  state: WatcherState,
  phase: WatcherPhase,
  events: WatcherEvent<T>[] = [],
): WatcherTransition<T> {
  return { state: { ...state, phase }, events };
}

function restartPhase(strategy: InitialListMode, listResourceVersion: "0" | undefined): WatcherPhase {
  return strategy === "paged"
    ? { kind: "empty", listResourceVersion }
    : { kind: "initStreaming", open: false, started: false, listResourceVersion };
}

function relist<T extends KubeObject>(state: WatcherState, notice: string): WatcherTransition<T> {
  return { state: { ...state, phase: restartPhase(state.strategy, undefined) }, events: [], notice };
}

function restartStream<T extends KubeObject>(
  state: WatcherState,
  p: Extract<WatcherPhase, { kind: "initStreaming" }>,
  error: Error,
): WatcherTransition<T> {
  return { state: { ...state, phase: { ...p, open: false, started: false } }, events: [errorEvent(error)] };
}

function fallBack<T extends KubeObject>(
  p: Extract<WatcherPhase, { kind: "initStreaming" }>,
  why: string,
): WatcherTransition<T> {
  return {
    state: { strategy: "paged", phase: { kind: "empty", listResourceVersion: p.listResourceVersion } },
    events: [],
    notice: `Streaming list not usable (${why}); using paged lists from now on`,
  };
}

function unexpected<T extends KubeObject>(state: WatcherState, input: string): WatcherTransition<T> {
  return {
    state,
    events: [errorEvent(new Error(`Watcher bug: input "${input}" in phase "${state.phase.kind}"`))],
  };
}

function errorEvent<T extends KubeObject>(error: unknown): WatcherEvent<T> {
  return {
    type: "error",
    error: error instanceof Error ? error : new Error(String(error), { cause: error }),
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

/** 410 Gone / reason Expired or Gone: the resourceVersion is too old and only a relist helps. */
export function isGone(error: unknown): boolean {
  if (error instanceof ApiError) return error.isGone;
  return false;
}

function isGoneStatus(status: Status): boolean {
  return status.code === 410 || status.reason === "Expired" || status.reason === "Gone";
}

/** Answers that mean "this server does not do streaming lists" (old server, feature gate off, policy). */
function rejectsStreaming(status: Status | undefined): boolean {
  if (!status) return false;
  if (status.code !== undefined && [400, 403, 405, 422, 501].includes(status.code)) return true;
  return /not supported|sendInitialEvents|resourceVersionMatch|WatchList/i.test(status.message ?? "");
}
