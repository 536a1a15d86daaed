/**
 * Building blocks shared by the watcher's transition functions (`watcher_state.ts` and
 * `_watcher_init_streaming.ts`). Internal: pure helpers, no I/O.
 * @module
 */
import { ApiError } from "../client/api_error.ts";
import type { KubeObject } from "../resources/object.ts";
import type { WatcherEvent } from "./watcher_event.ts";
import type { InitialListMode, WatcherPhase, WatcherState, WatcherTransition } from "./watcher_state.ts";

/** The same strategy in a new phase, yielding `events`. */
export function to<T extends KubeObject>(
  state: WatcherState,
  phase: WatcherPhase,
  events: WatcherEvent<T>[] = [],
): WatcherTransition<T> {
  return { state: { ...state, phase }, events };
}

/** Where a full (re)list starts for `strategy`. */
export function restartPhase(strategy: InitialListMode): WatcherPhase {
  return strategy === "paged" ? { kind: "empty" } : { kind: "initStreaming", open: false, started: false };
}

/** After a 410: list again from the newest state (a consistent read), so the cache cannot go back in time. */
export function relist<T extends KubeObject>(state: WatcherState, notice: string): WatcherTransition<T> {
  return { state: { ...state, phase: restartPhase(state.strategy) }, events: [], notice };
}

/** An input the phase cannot receive: reported as an error (a bug), never silently ignored. */
export function unexpected<T extends KubeObject>(state: WatcherState, input: string): WatcherTransition<T> {
  return {
    state,
    events: [errorEvent(new Error(`Watcher bug: input "${input}" in phase "${state.phase.kind}"`))],
  };
}

/** An `error` watcher event; non-Error throwables are wrapped so consumers always get an Error. */
export function errorEvent<T extends KubeObject>(error: unknown): WatcherEvent<T> {
  return {
    type: "error",
    error: error instanceof Error ? error : new Error(String(error), { cause: error }),
  };
}

/** 410 Gone / reason Expired or Gone: the resourceVersion is too old and only a relist helps. */
export function isGone(error: unknown): boolean {
  return error instanceof ApiError && error.isGone;
}
