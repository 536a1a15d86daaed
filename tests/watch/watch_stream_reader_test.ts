import assert from "node:assert/strict";
import { WatchEventDecoder } from "../../lib/watch/watch_event_decoder.ts";
import { WatchIdleTimeoutError } from "../../lib/watch/watch_idle_timeout_error.ts";
import { WatchStreamReader } from "../../lib/watch/watch_stream_reader.ts";
import type { Timer } from "../../lib/time/clock.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { cm, line, ScriptedBody } from "./_helpers.ts";

/** A fake clock that counts the timers set on it. */
class CountingClock extends FakeClock {
  timersSet = 0;
  override setTimer(fn: () => void, ms: number): Timer {
    this.timersSet++;
    return super.setTimer(fn, ms);
  }
}

Deno.test("one timer serves a stream's reads: 500 chunks read back to back set at most 2 timers", async () => {
  const clock = new CountingClock();
  const chunks = Array.from({ length: 500 }, (_, i) => line("ADDED", cm(`o${i}`, String(i + 1))));
  const body = new ScriptedBody(chunks);
  const reader = new WatchStreamReader(body.stream, new WatchEventDecoder(), { clock, idleMs: 30_000 });
  let events = 0;
  for (let input = await reader.next(); input.kind === "event"; input = await reader.next()) events++;
  assert.equal(events, 500);
  // Before, every chunk set (and cancelled) a timer of its own: 501 here.
  assert.ok(clock.timersSet <= 2, `${clock.timersSet} timers set`);
  assert.equal(clock.pending, 0, "no timer left once the stream ended");
});

Deno.test("a timer kept from earlier reads still ends a wait at exactly the idle limit of that wait", async () => {
  const clock = new CountingClock();
  const body = new ScriptedBody([line("ADDED", cm("a", "1")), line("ADDED", cm("b", "2"))], { stall: true });
  const reader = new WatchStreamReader(body.stream, new WatchEventDecoder(), { clock, idleMs: 30_000 });
  assert.equal((await reader.next()).kind, "event");
  await clock.advance(20_000); // the consumer is slow: not waiting for bytes, so this does not count
  assert.equal((await reader.next()).kind, "event");
  const waitStarted = clock.now();
  const pending = reader.next();
  let settled = false;
  void pending.then(() => settled = true);
  await clock.advance(29_999);
  assert.equal(settled, false, "not before 30 s of waiting");
  await clock.advance(1);
  const input = await pending;
  assert.ok(input.kind === "streamFailed" && input.error instanceof WatchIdleTimeoutError, input.kind);
  assert.equal(clock.now() - waitStarted, 30_000);
  assert.equal(body.cancelled, true);
  await reader.close();
  assert.equal(clock.pending, 0, "no timer left behind");
});

Deno.test("closing a reader between reads cancels its timer, so nothing keeps the process alive", async () => {
  const clock = new CountingClock();
  const body = new ScriptedBody([line("ADDED", cm("a", "1"))], { stall: true });
  const reader = new WatchStreamReader(body.stream, new WatchEventDecoder(), { clock, idleMs: 30_000 });
  assert.equal((await reader.next()).kind, "event");
  assert.equal(clock.pending, 1, "the timer is kept between reads");
  await reader.close();
  assert.equal(clock.pending, 0);
});
