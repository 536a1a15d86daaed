/**
 * The watcher's protocol as data, in one file: its phases, the I/O it asks for ({@linkcode nextAction}),
 * the results fed back ({@linkcode WatcherInput}) and one pure transition function ({@linkcode step}).
 * The driver (`watcher.ts`) does all I/O and timing; everything decided here is tested transition by
 * transition without sockets (tests/watch/watcher_state_test.ts).
 * @module
 */
import { ApiError, isGoneStatus } from "../client/api_error.ts";
import type { KubeObject, ObjectList, Status } from "../resources/object.ts";
import { WatchEndedEarlyError } from "./watch_ended_early_error.ts";
import { assertNever } from "../_internal/assert_never.ts";
import { isInitialEventsEnd, type RawWatchEvent } from "./watch_event.ts";
import type { WatcherEvent } from "./watcher_event.ts";

/**
 * How the watcher gets the initial state: "paged" (the default) lists in pages then watches; "stream"
 * asks for a streaming list (a watch with `sendInitialEvents=true`); "auto" tries streaming and falls
 * back to paged for good when the server rejects it.
 *
 * Both are consistent reads (a paged list sends no resourceVersion), and kube-apiserver v1.34 and later
 * serve both from its watch cache, a page or an event at a time. Measured (bench/RESULTS.md, "Consistent
 * paged lists"): paged took 0.79–0.94× the time of a streaming list and 0.42–0.74× of the server's CPU for
 * the same client peak memory (10,000 ConfigMaps or Foos; at 50,000 ConfigMaps 0.80× the time).
 */
export type InitialListMode = "auto" | "stream" | "paged";

/**
 * Where the watcher is. Every list starts from the newest state (a consistent read), so no phase before
 * the first sync needs a resourceVersion.
 */
export type WatcherPhase =
  /** Nothing listed yet; the next action lists the first page. */
  | { kind: "empty" }
  /** Some pages listed; the next action lists the page at `continueToken`. */
  | { kind: "initPage"; continueToken: string }
  /** Streaming list: `open` when the watch is open, `started` once `init` was yielded for this attempt. */
  | { kind: "initStreaming"; open: boolean; started: boolean }
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
  | { kind: "list"; continue?: string }
  | { kind: "watch"; resourceVersion?: string; sendInitialEvents: boolean }
  | { kind: "read" };

/** The result of that I/O, fed back into {@linkcode step}. */
export type WatcherInput<T extends KubeObject = KubeObject> =
  | { kind: "listed"; list: ObjectList<T> }
  | { kind: "listFailed"; error: unknown }
  | { kind: "watchOpened" }
  | { kind: "watchFailed"; error: unknown }
  | { kind: "event"; event: RawWatchEvent<T> }
  /**
   * The stream closed cleanly after delivering `events` wire events (bookmarks included) in `openMs`
   * since it opened. The driver measures; {@linkcode step} judges, so it stays pure.
   */
  | { kind: "streamEnded"; events: number; openMs: number }
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
  return { strategy, phase: restartPhase(strategy) };
}

/** The I/O the state asks for. Pure. */
export function nextAction(state: WatcherState): WatcherAction {
  const p = state.phase;
  switch (p.kind) {
    case "empty":
      return { kind: "list" };
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
 * A clean end sooner than this, without a single event, counts as a failure (client-go's rule):
 * a healthy watch lasts until its `timeoutSeconds`, minutes.
 */
const SHORT_WATCH_MS = 1_000;

/**
 * The state machine's transition function, and its only entry point. Pure: no I/O, no clock, no
 * randomness, so every transition is tested directly. The streaming-list phase is handled by
 * `stepInitStreaming` below.
 */
export function step<T extends KubeObject>(
  state: WatcherState,
  input: WatcherInput<T>,
): WatcherTransition<T> {
  const p = state.phase;
  if (p.kind === "initStreaming" && input.kind !== "listed" && input.kind !== "listFailed") {
    return stepInitStreaming(state, p, input);
  }
  switch (input.kind) {
    case "listed":
      return onListed(state, input.list);
    case "listFailed":
      if (isGone(input.error)) return relist(state, "list answered 410 Gone; listing again from scratch");
      return { state, events: [errorEvent(input.error)] };
    case "watchOpened":
      if (p.kind === "initListed") return to(state, watching(p.resourceVersion));
      return unexpected(state, input.kind);
    case "watchFailed":
      if (isGone(input.error)) return relist(state, "watch answered 410 Gone; listing again from scratch");
      return { state, events: [errorEvent(input.error)] };
    case "event":
      if (p.kind === "watching") return onWatchEvent(state, p.resourceVersion, input.event);
      return unexpected(state, input.kind);
    case "streamEnded":
      if (p.kind !== "watching") return unexpected(state, input.kind);
      if (input.events === 0 && input.openMs < SHORT_WATCH_MS) {
        // Without an error the driver would reconnect at once, forever, against a server or proxy
        // that answers 200 and hangs up; the error lets the backoff space the attempts.
        return to(state, initListed(p.resourceVersion), [errorEvent(new WatchEndedEarlyError(input.openMs))]);
      }
      return to(state, initListed(p.resourceVersion));
    case "streamFailed":
      if (p.kind === "watching") return to(state, initListed(p.resourceVersion), [errorEvent(input.error)]);
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
  if (token) return to(state, { kind: "initPage", continueToken: token }, events);
  const rv = list.metadata.resourceVersion;
  if (!rv) {
    events.push(errorEvent(new Error("List response has no metadata.resourceVersion")));
    return to(state, { kind: "empty" }, events);
  }
  events.push({ type: "initDone", resourceVersion: rv });
  return to(state, initListed(rv), events);
}

function onWatchEvent<T extends KubeObject>(
  state: WatcherState,
  rv: string,
  event: RawWatchEvent<T>,
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
      return to(state, initListed(rv), [errorEvent(new ApiError(event.object))]);
    default:
      return assertNever(event, "watch event");
  }
}

function watching(resourceVersion: string): WatcherPhase {
  return { kind: "watching", resourceVersion };
}

function initListed(resourceVersion: string): WatcherPhase {
  return { kind: "initListed", resourceVersion };
}

// The streaming list (a watch with sendInitialEvents=true), including "auto"'s one-way fallback.

type StreamingPhase = Extract<WatcherPhase, { kind: "initStreaming" }>;

/** The inputs a streaming list can receive (list answers cannot happen in this phase). */
type StreamingInput<T extends KubeObject> = Exclude<
  WatcherInput<T>,
  { kind: "listed" } | { kind: "listFailed" }
>;

/** One transition in the `initStreaming` phase. Pure. */
function stepInitStreaming<T extends KubeObject>(
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
  event: RawWatchEvent<T>,
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

// Building blocks shared by both parts.

/** The same strategy in a new phase, yielding `events`. */
function to<T extends KubeObject>(
  state: WatcherState,
  phase: WatcherPhase,
  events: WatcherEvent<T>[] = [],
): WatcherTransition<T> {
  return { state: { ...state, phase }, events };
}

/** Where a full (re)list starts for `strategy`. */
function restartPhase(strategy: InitialListMode): WatcherPhase {
  return strategy === "paged" ? { kind: "empty" } : { kind: "initStreaming", open: false, started: false };
}

/** After a 410: list again from the newest state (a consistent read), so the cache cannot go back in time. */
function relist<T extends KubeObject>(state: WatcherState, notice: string): WatcherTransition<T> {
  return { state: { ...state, phase: restartPhase(state.strategy) }, events: [], notice };
}

/** An input the phase cannot receive: reported as an error (a bug), never silently ignored. */
function unexpected<T extends KubeObject>(state: WatcherState, input: string): WatcherTransition<T> {
  return {
    state,
    events: [errorEvent(new Error(`Watcher bug: input "${input}" in phase "${state.phase.kind}"`))],
  };
}

/** An `error` watcher event; non-Error throwables are wrapped so consumers always get an Error. */
function errorEvent<T extends KubeObject>(error: unknown): WatcherEvent<T> {
  return {
    type: "error",
    error: error instanceof Error ? error : new Error(String(error), { cause: error }),
  };
}

/** 410 Gone / reason Expired or Gone: the resourceVersion is too old and only a relist helps. */
export function isGone(error: unknown): boolean {
  return error instanceof ApiError && error.isGone;
}
