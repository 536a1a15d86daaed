import assert from "node:assert/strict";
import { withTimeout } from "../../lib/_internal/with_timeout.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";

Deno.test("withTimeout resolves with fn's result and leaves no timer or listener behind", async () => {
  const clock = new FakeClock();
  const parent = new AbortController();
  let seen: AbortSignal | undefined;
  const result = await withTimeout((signal) => {
    seen = signal;
    return Promise.resolve(42);
  }, { timeoutMs: 1_000, clock, signal: parent.signal });
  assert.equal(result, 42);
  assert.equal(clock.pending, 0, "the timer was cancelled");
  parent.abort(new Error("later"));
  assert.equal(seen?.aborted, false, "a parent abort after the call no longer reaches it");
});

Deno.test("withTimeout aborts fn's signal with a TimeoutError naming the call after timeoutMs", async () => {
  const clock = new FakeClock();
  const call = withTimeout(
    (signal) =>
      new Promise<never>((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason), { once: true })
      ),
    { timeoutMs: 500, clock, what: "Lease renewal" },
  );
  const settled = assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof DOMException);
    assert.equal(error.name, "TimeoutError");
    assert.equal(error.message, "Lease renewal timed out after 500 ms");
    return true;
  });
  await clock.advance(499);
  await flush();
  let done = false;
  void settled.then(() => done = true);
  await flush();
  assert.equal(done, false, "not before timeoutMs");
  await clock.advance(1);
  await settled;
});

Deno.test("withTimeout passes the parent's abort reason on, also when the parent is already aborted", async () => {
  const clock = new FakeClock();
  const rejectOnAbort = (signal: AbortSignal) =>
    new Promise<never>((_, reject) => {
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  const stop = new Error("shutting down");
  const early = new AbortController();
  early.abort(stop);
  await assert.rejects(
    withTimeout(rejectOnAbort, { timeoutMs: 1_000, clock, signal: early.signal }),
    (e) => e === stop,
  );

  const later = new AbortController();
  const call = withTimeout(rejectOnAbort, { timeoutMs: 1_000, clock, signal: later.signal });
  later.abort(stop);
  await assert.rejects(call, (e) => e === stop);
  assert.equal(clock.pending, 0);
});
