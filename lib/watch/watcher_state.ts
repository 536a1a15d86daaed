import { ApiError, isGoneStatus } from "../client/api_error.ts";
import type { KubeObject, ObjectList } from "../resources/object.ts";
import { stepInitStreaming } from "./_watcher_init_streaming.ts";
import { errorEvent, isGone, relist, restartPhase, to, unexpected } from "./_watcher_transition.ts";
import { WatchEndedEarlyError } from "./watch_ended_early_error.ts";
import { assertNever, type WatchEvent } from "./watch_event.ts";
import type { WatcherEvent } from "./watcher_event.ts";

export { isGone } from "./_watcher_transition.ts";

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
  | { kind: "event"; event: WatchEvent<T> }
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
 * randomness, so every transition is tested directly. The streaming-list phase is handled in
 * `_watcher_init_streaming.ts`.
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
