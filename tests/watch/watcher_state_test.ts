import assert from "node:assert/strict";
import { ApiError, isGoneStatus } from "../../lib/client/api_error.ts";
import type { KubeObject } from "../../lib/resources/object.ts";
import { WatchEndedEarlyError } from "../../lib/watch/watch_ended_early_error.ts";
import type { RawWatchEvent } from "../../lib/watch/watch_event.ts";
import {
  initialState,
  nextAction,
  step,
  streamIsOpen,
  type WatcherInput,
  type WatcherState,
} from "../../lib/watch/watcher_state.ts";
import { apiError, cm, page } from "./_helpers.ts";

const watching = (rv: string, strategy: WatcherState["strategy"] = "paged"): WatcherState => ({
  strategy,
  phase: { kind: "watching", resourceVersion: rv },
});
const listed = (rv: string): WatcherState => ({
  strategy: "paged",
  phase: { kind: "initListed", resourceVersion: rv },
});
const streaming = (strategy: WatcherState["strategy"], open = true, started = false): WatcherState => ({
  strategy,
  phase: { kind: "initStreaming", open, started },
});
const ev = (event: RawWatchEvent): WatcherInput => ({ kind: "event", event });
const types = (t: { events: { type: string }[] }) => t.events.map((e) => e.type);
/** A stream that ended after `events` events and `openMs` ms; by default a healthy 5-minute watch. */
const ended = (events = 3, openMs = 300_000): WatcherInput => ({ kind: "streamEnded", events, openMs });
const status = (code: number, reason: string, message = reason) => ({
  kind: "Status" as const,
  code,
  reason,
  message,
});

Deno.test("a paged watcher starts empty and lists the first page as a consistent read (no resourceVersion)", () => {
  const s = initialState("paged");
  assert.deepEqual(s.phase, { kind: "empty" });
  assert.deepEqual(nextAction(s), { kind: "list" });
  assert.equal(streamIsOpen(s), false);
});

Deno.test("auto and stream watchers start with a streaming-list watch", () => {
  for (const mode of ["auto", "stream"] as const) {
    const s = initialState(mode);
    assert.equal(s.phase.kind, "initStreaming");
    assert.deepEqual(nextAction(s), { kind: "watch", sendInitialEvents: true });
  }
});

Deno.test("a page with a continue token yields init and initApply and asks for the next page without RV", () => {
  const t = step(initialState("paged"), {
    kind: "listed",
    list: page([cm("a", "1"), cm("b", "2")], "10", "tok"),
  });
  assert.deepEqual(types(t), ["init", "initApply", "initApply"]);
  assert.deepEqual(t.state.phase, { kind: "initPage", continueToken: "tok" });
  assert.deepEqual(nextAction(t.state), { kind: "list", continue: "tok" });
});

Deno.test("the last page yields initDone with the list resourceVersion and then a watch from it", () => {
  const mid = step(initialState("paged"), { kind: "listed", list: page([cm("a", "1")], "10", "tok") }).state;
  const t = step(mid, { kind: "listed", list: page([cm("c", "3")], "10") });
  assert.deepEqual(t.events, [{ type: "initApply", object: cm("c", "3") }, {
    type: "initDone",
    resourceVersion: "10",
  }]);
  assert.deepEqual(t.state.phase, { kind: "initListed", resourceVersion: "10" });
  assert.deepEqual(nextAction(t.state), { kind: "watch", resourceVersion: "10", sendInitialEvents: false });
});

Deno.test("a list without resourceVersion is an error and the watcher lists again", () => {
  const t = step(initialState("paged"), { kind: "listed", list: { metadata: {}, items: [] } });
  assert.deepEqual(types(t), ["init", "error"]);
  assert.equal(t.state.phase.kind, "empty");
});

Deno.test("a 410 on list (expired continue token) restarts with a consistent list", () => {
  const s: WatcherState = { strategy: "paged", phase: { kind: "initPage", continueToken: "old" } };
  const t = step(s, { kind: "listFailed", error: apiError(410, "Expired") });
  assert.deepEqual(t.events, []);
  assert.deepEqual(t.state.phase, { kind: "empty" });
  assert.deepEqual(nextAction(t.state), { kind: "list" });
});

Deno.test("other list failures are yielded and the same page is retried", () => {
  const s: WatcherState = { strategy: "paged", phase: { kind: "initPage", continueToken: "t" } };
  const t = step(s, { kind: "listFailed", error: apiError(500, "InternalError") });
  assert.deepEqual(types(t), ["error"]);
  assert.deepEqual(t.state, s);
});

Deno.test("an opened watch moves initListed to watching", () => {
  const t = step(listed("10"), { kind: "watchOpened" });
  assert.deepEqual(t.state.phase, { kind: "watching", resourceVersion: "10" });
  assert.equal(streamIsOpen(t.state), true);
  assert.deepEqual(nextAction(t.state), { kind: "read" });
});

Deno.test("ADDED and MODIFIED yield apply, DELETED yields delete, and each advances the resourceVersion", () => {
  let s = watching("10");
  let t = step(s, ev({ type: "ADDED", object: cm("a", "11") }));
  assert.deepEqual(t.events, [{ type: "apply", object: cm("a", "11") }]);
  s = t.state;
  t = step(s, ev({ type: "MODIFIED", object: cm("a", "12") }));
  assert.equal(t.events[0]?.type, "apply");
  t = step(t.state, ev({ type: "DELETED", object: cm("a", "13") }));
  assert.deepEqual(t.events, [{ type: "delete", object: cm("a", "13") }]);
  assert.deepEqual(t.state.phase, { kind: "watching", resourceVersion: "13" });
});

Deno.test("a bookmark advances the resourceVersion silently", () => {
  const t = step(watching("10"), ev({ type: "BOOKMARK", object: { metadata: { resourceVersion: "50" } } }));
  assert.deepEqual(t.events, []);
  assert.deepEqual(t.state.phase, { kind: "watching", resourceVersion: "50" });
});

Deno.test("an ERROR event with code 410 or reason Expired or Gone leads to a consistent relist", () => {
  for (const st of [status(410, "Expired"), status(0, "Expired"), status(0, "Gone"), status(410, "")]) {
    const t = step(watching("10"), ev({ type: "ERROR", object: st }));
    assert.deepEqual(t.events, []);
    assert.deepEqual(t.state.phase, { kind: "empty" });
    assert.equal(streamIsOpen(t.state), false);
    assert.ok(t.notice);
  }
});

Deno.test("other ERROR events are yielded as ApiError and the watch resumes from the last RV", () => {
  const t = step(watching("10"), ev({ type: "ERROR", object: status(500, "InternalError", "boom") }));
  assert.equal(t.events.length, 1);
  const e = t.events[0]!;
  assert.ok(e.type === "error" && e.error instanceof ApiError && e.error.code === 500);
  assert.deepEqual(t.state.phase, { kind: "initListed", resourceVersion: "10" });
});

Deno.test("a clean end of the stream re-watches from the last RV without an error", () => {
  for (const input of [ended(), ended(1, 5), ended(0, 300_000)]) {
    const t = step(watching("42"), input);
    assert.deepEqual(t.events, [], "events, or a long quiet stretch, make it a normal timeout");
    assert.deepEqual(nextAction(t.state), { kind: "watch", resourceVersion: "42", sendInitialEvents: false });
  }
});

Deno.test("a watch that ends within a second without any event is an error, so the backoff applies", () => {
  for (const openMs of [0, 999]) {
    const t = step(watching("42"), ended(0, openMs));
    assert.deepEqual(types(t), ["error"]);
    const e = t.events[0]!;
    assert.ok(e.type === "error" && e.error instanceof WatchEndedEarlyError && e.error.openMs === openMs);
    assert.match(e.error.message, /closed without any event/);
    assert.deepEqual(nextAction(t.state), { kind: "watch", resourceVersion: "42", sendInitialEvents: false });
  }
  assert.deepEqual(step(watching("42"), ended(0, 1_000)).events, [], "one second is long enough");
});

Deno.test("ERROR events and refused requests share one 410 rule (code 410, reason Expired or Gone)", () => {
  const cases = [
    status(410, ""),
    status(0, "Expired"),
    status(0, "Gone"),
    status(500, "InternalError"),
    status(409, "Conflict"),
    { kind: "Status" as const, code: 410 },
  ];
  for (const st of cases) {
    const gone = isGoneStatus(st);
    assert.equal(new ApiError(st).isGone, gone, JSON.stringify(st));
    const onEvent = step(watching("10"), ev({ type: "ERROR", object: st }));
    const onAnswer = step(listed("10"), { kind: "watchFailed", error: new ApiError(st) });
    for (const t of [onEvent, onAnswer]) {
      assert.equal(t.state.phase.kind === "empty", gone, `relists exactly when gone: ${JSON.stringify(st)}`);
    }
  }
});

Deno.test("a failed stream is yielded and resumes from the last good RV", () => {
  const t = step(watching("42"), { kind: "streamFailed", error: new TypeError("connection reset") });
  assert.deepEqual(types(t), ["error"]);
  assert.deepEqual(nextAction(t.state), { kind: "watch", resourceVersion: "42", sendInitialEvents: false });
});

Deno.test("a watch refused with 410 relists; refused otherwise it is yielded and retried from the same RV", () => {
  const gone = step(listed("5"), { kind: "watchFailed", error: apiError(410, "Gone") });
  assert.deepEqual(gone.state.phase, { kind: "empty" });
  const forbidden = step(listed("5"), { kind: "watchFailed", error: apiError(403, "Forbidden") });
  assert.deepEqual(types(forbidden), ["error"]);
  assert.deepEqual(forbidden.state, listed("5"));
  const net = step(listed("5"), { kind: "watchFailed", error: "weird" });
  assert.ok(net.events[0]?.type === "error" && net.events[0].error instanceof Error);
});

Deno.test("a streaming list yields init once, initApply per object and initDone at the end bookmark", () => {
  let s = step(initialState("stream"), { kind: "watchOpened" }).state;
  assert.equal(streamIsOpen(s), true);
  let t = step(s, ev({ type: "ADDED", object: cm("a", "3") }));
  assert.deepEqual(types(t), ["init", "initApply"]);
  t = step(t.state, ev({ type: "ADDED", object: cm("b", "4") }));
  assert.deepEqual(types(t), ["initApply"]);
  s = t.state;
  t = step(s, ev({ type: "BOOKMARK", object: { metadata: { resourceVersion: "9" } } }));
  assert.deepEqual(t.events, [], "a progress bookmark in the middle is not the end");
  t = step(
    t.state,
    ev({
      type: "BOOKMARK",
      object: { metadata: { resourceVersion: "9", annotations: { "k8s.io/initial-events-end": "true" } } },
    }),
  );
  assert.deepEqual(t.events, [{ type: "initDone", resourceVersion: "9" }]);
  assert.deepEqual(t.state, watching("9", "stream"));
});

Deno.test("an empty streaming list yields init and initDone", () => {
  const t = step(
    streaming("auto"),
    ev({
      type: "BOOKMARK",
      object: { metadata: { resourceVersion: "2", annotations: { "k8s.io/initial-events-end": "true" } } },
    }),
  );
  assert.deepEqual(types(t), ["init", "initDone"]);
  assert.equal(t.state.strategy, "stream", "auto remembers that streaming works");
});

Deno.test("auto falls back to paged lists for good when the server rejects streaming", () => {
  const rejections: WatcherInput<KubeObject>[] = [
    { kind: "watchFailed", error: apiError(422, "Invalid", "resourceVersionMatch is forbidden for watch") },
    { kind: "watchFailed", error: apiError(400, "BadRequest") },
    { kind: "watchFailed", error: apiError(403, "Forbidden") },
    { kind: "watchFailed", error: apiError(500, "InternalError", "sendInitialEvents is not supported") },
    ev({ type: "ERROR", object: status(422, "Invalid") }),
    ev({ type: "BOOKMARK", object: { metadata: { resourceVersion: "1" } } }),
    ev({ type: "DELETED", object: cm("a", "1") }),
    ended(),
  ];
  for (const input of rejections) {
    const s = input.kind === "watchFailed" ? streaming("auto", false) : streaming("auto");
    const t = step(s, input);
    assert.deepEqual(t.events, [], input.kind);
    assert.deepEqual(t.state, { strategy: "paged", phase: { kind: "empty" } });
    assert.match(t.notice ?? "", /Streaming list not usable/);
  }
});

Deno.test("a forced streaming list does not fall back: failures are yielded and the stream restarts", () => {
  const t1 = step(streaming("stream", false), { kind: "watchFailed", error: apiError(422, "Invalid") });
  assert.deepEqual(types(t1), ["error"]);
  assert.equal(t1.state.strategy, "stream");
  const t2 = step(streaming("stream", true, true), ended());
  assert.deepEqual(types(t2), ["error"]);
  assert.deepEqual(t2.state.phase, { kind: "initStreaming", open: false, started: false });
  const t3 = step(streaming("stream"), ev({ type: "DELETED", object: cm("a", "1") }));
  assert.deepEqual(types(t3), ["error"]);
  const t4 = step(streaming("stream"), ev({ type: "ERROR", object: status(500, "InternalError") }));
  assert.deepEqual(types(t4), ["error"]);
  assert.equal(streamIsOpen(t4.state), false);
  const t5 = step(streaming("stream", true, true), { kind: "streamFailed", error: new Error("reset") });
  assert.deepEqual(types(t5), ["error"]);
  assert.equal(nextAction(t5.state).kind, "watch");
});

Deno.test("a 410 during a streaming list restarts the streaming list, carrying no list state", () => {
  const t = step(streaming("stream"), ev({ type: "ERROR", object: status(410, "Expired") }));
  assert.deepEqual(t.state.phase, { kind: "initStreaming", open: false, started: false });
  const t2 = step(streaming("stream", false), { kind: "watchFailed", error: apiError(410, "Gone") });
  assert.equal(t2.state.phase.kind, "initStreaming");
});

Deno.test("once streaming has worked, later rejections are errors, not fallbacks", () => {
  const t = step(streaming("stream", false), { kind: "watchFailed", error: apiError(403, "Forbidden") });
  assert.deepEqual(types(t), ["error"]);
  assert.equal(t.state.strategy, "stream");
});

Deno.test("after falling back, a 410 relists with paged lists at RV unset", () => {
  const t = step(watching("7", "paged"), ev({ type: "ERROR", object: status(410, "Expired") }));
  assert.deepEqual(nextAction(t.state), { kind: "list" });
});

Deno.test("inputs that cannot happen in a phase are reported as errors, not ignored", () => {
  const t = step(initialState("paged"), ev({ type: "ADDED", object: cm("a", "1") }));
  assert.deepEqual(types(t), ["error"]);
  assert.equal(step(watching("1"), { kind: "listed", list: page([], "1") }).events[0]?.type, "error");
  assert.equal(step(watching("1"), { kind: "watchOpened" }).events[0]?.type, "error");
  assert.equal(step(listed("1"), ended()).events[0]?.type, "error");
  assert.equal(step(listed("1"), { kind: "streamFailed", error: new Error() }).events[0]?.type, "error");
});

Deno.test("the step function does not mutate its input state", () => {
  const s = Object.freeze({
    ...watching("1"),
    phase: Object.freeze({ kind: "watching", resourceVersion: "1" }),
  });
  step(s as WatcherState, ev({ type: "ADDED", object: cm("a", "2") }));
  assert.deepEqual(s, watching("1"));
});
