import assert from "node:assert/strict";
import { flush } from "../_util/fake_clock.ts";
import { foo, setup } from "./fake_events.ts";

const synced = { type: "Normal", reason: "Synced", note: "ok" } as const;

Deno.test("a record during dispose is dropped with a debug log and leaves no timer behind", async () => {
  const { client, clock, logs, recorder } = setup();
  recorder.record(foo, synced);
  await clock.advance(1_000);
  recorder.record(foo, synced); // arms the series timer
  const disposed = recorder[Symbol.asyncDispose]();
  recorder.record(foo, synced); // while the final patch is being written
  await disposed;
  assert.equal(clock.pending, 0, "no timer may fire after dispose");
  assert.ok(logs.some((l) => l.level === "debug" && /dropped/.test(l.msg)));
  await clock.advance(60_000);
  assert.deepEqual(client.attempts, ["create", "patch"]);
});

Deno.test("dispose abandons writes after its deadline and aborts the request in flight", async () => {
  const { client, clock, logs, recorder } = setup();
  client.hang = true;
  for (let i = 0; i < 3; i++) recorder.record(foo, { type: "Normal", reason: `R${i}`, note: "n" });
  let disposed = false;
  const disposing = recorder[Symbol.asyncDispose]().then(() => (disposed = true));
  await clock.advance(4_999);
  assert.equal(disposed, false);
  await clock.advance(1);
  await flush();
  assert.equal(disposed, true, "dispose must resolve at the 5 s default deadline");
  await disposing;
  assert.deepEqual(client.attempts, ["create"], "queued writes are dropped, not sent");
  assert.equal(client.signals[0]?.aborted, true, "the request in flight is aborted");
  assert.ok(logs.some((l) => l.level === "warn" && /abandoned/.test(l.msg)));
});

Deno.test("flush gives up when its signal aborts and the recorder keeps working afterwards", async () => {
  const { client, recorder } = setup();
  client.hang = true;
  recorder.record(foo, synced);
  const stop = new AbortController();
  const flushed = recorder.flush({ signal: stop.signal });
  await flush();
  stop.abort(new Error("shutting down"));
  await flushed;
  assert.equal(client.signals[0]?.aborted, true, "the abandoned request was aborted");
  client.hang = false;
  recorder.record(foo, { type: "Normal", reason: "Later", note: "n" });
  await recorder.flush();
  assert.deepEqual(client.calls.map((c) => c.op === "create" && c.event.reason), ["Later"]);
  await recorder[Symbol.asyncDispose]();
});
