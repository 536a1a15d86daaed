import assert from "node:assert/strict";
import { ApiError } from "../../lib/client/api_error.ts";
import { foo, setup } from "./fake_events.ts";

Deno.test("the first occurrence is written as an events.k8s.io/v1 Event", async () => {
  const { client, recorder } = setup();
  assert.equal(
    recorder.record(foo, { type: "Normal", reason: "Synced", note: "Foo synced successfully" }),
    undefined,
  );
  await recorder.flush();
  assert.equal(client.calls.length, 1);
  const call = client.calls[0];
  assert.ok(call?.op === "create");
  assert.equal(call.namespace, "default");
  const e = call.event;
  assert.equal(e.apiVersion, "events.k8s.io/v1");
  assert.equal(e.eventTime, "2026-01-01T00:00:00.000000Z");
  assert.deepEqual(e.regarding, {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    name: "example-foo",
    namespace: "default",
    uid: "u-1",
    resourceVersion: "7",
  });
  assert.equal(e.reportingController, "sample-controller");
  assert.equal(e.reportingInstance, "sample-controller-1");
  assert.equal(e.action, "Synced");
  assert.equal(e.note, "Foo synced successfully");
  assert.equal(e.type, "Normal");
  assert.equal(e.series, undefined);
  assert.match(e.metadata.name ?? "", /^example-foo\./);
  await recorder[Symbol.asyncDispose]();
});

Deno.test("repeats within the window become one Event whose series carries the count", async () => {
  const { client, clock, recorder } = setup();
  for (let i = 0; i < 5; i++) {
    recorder.record(foo, { type: "Normal", reason: "Synced", note: "Foo synced successfully" });
    await clock.advance(1_000);
  }
  await recorder.flush();
  assert.deepEqual(client.calls.map((c) => c.op), ["create", "patch"]);
  const created = client.calls[0];
  const patch = client.calls[1];
  assert.ok(created?.op === "create" && patch?.op === "patch");
  assert.equal(patch.name, created.event.metadata.name);
  assert.equal(patch.type, "merge");
  assert.deepEqual(patch.patch, { series: { count: 5, lastObservedTime: "2026-01-01T00:00:04.000000Z" } });
  await recorder[Symbol.asyncDispose]();
});

Deno.test("series patches go out at most once per interval and carry the latest count", async () => {
  const { client, clock, recorder } = setup();
  const ev = { type: "Warning", reason: "ErrResourceExists", note: "already exists" } as const;
  recorder.record(foo, ev);
  await clock.advance(1_000);
  recorder.record(foo, ev);
  await clock.advance(9_000);
  recorder.record(foo, ev);
  await clock.advance(19_000); // t = 29 s: nothing patched yet
  assert.deepEqual(client.calls.map((c) => c.op), ["create"]);
  await clock.advance(1_000); // t = 30 s
  assert.deepEqual(client.calls.map((c) => c.op), ["create", "patch"]);
  assert.deepEqual((client.calls[1] as { patch: unknown }).patch, {
    series: { count: 3, lastObservedTime: "2026-01-01T00:00:10.000000Z" },
  });
  recorder.record(foo, ev); // t = 30 s, right after a patch: waits for the next interval
  await clock.advance(29_000);
  assert.equal(client.calls.length, 2);
  await clock.advance(1_000);
  assert.equal(client.calls.length, 3);
  assert.equal((client.calls[2] as { patch: { series: { count: number } } }).patch.series.count, 4);
  await recorder[Symbol.asyncDispose]();
});

Deno.test("after the series window a repeat starts a new Event; a different note is a different Event", async () => {
  const { client, clock, recorder } = setup();
  recorder.record(foo, { type: "Normal", reason: "Synced", note: "a" });
  recorder.record(foo, { type: "Normal", reason: "Synced", note: "b" });
  await clock.advance(6 * 60_000);
  recorder.record(foo, { type: "Normal", reason: "Synced", note: "a" });
  await recorder.flush();
  assert.deepEqual(client.calls.map((c) => c.op), ["create", "create", "create"]);
  const names = new Set(client.calls.map((c) => c.op === "create" ? c.event.metadata.name : ""));
  assert.equal(names.size, 3);
  await recorder[Symbol.asyncDispose]();
});

Deno.test("the spam filter drops new Events beyond the burst for one object and refills slowly", async () => {
  const { client, clock, recorder, logs } = setup();
  for (let i = 0; i < 30; i++) recorder.record(foo, { type: "Normal", reason: `R${i}`, note: "n" });
  recorder.record({ ...foo, metadata: { ...foo.metadata, uid: "u-2" } }, {
    type: "Normal",
    reason: "X",
    note: "n",
  });
  await recorder.flush();
  assert.equal(client.calls.length, 26);
  assert.equal(logs.filter((l) => l.level === "debug" && /spam filter/.test(l.msg)).length, 5);
  await clock.advance(5 * 60_000);
  recorder.record(foo, { type: "Normal", reason: "Again1", note: "n" });
  recorder.record(foo, { type: "Normal", reason: "Again2", note: "n" });
  await recorder.flush();
  assert.equal(client.calls.length, 27);
  await recorder[Symbol.asyncDispose]();
});

Deno.test("write failures are logged, never thrown, and flush still resolves", async () => {
  const { client, recorder, logs } = setup();
  client.failCreate = true;
  recorder.record(foo, { type: "Warning", reason: "Failed", note: "boom" });
  await recorder.flush();
  assert.equal(client.calls.length, 0);
  assert.ok(logs.some((l) => l.level === "warn" && l.msg === "Cannot write event"));
  client.failCreate = false;
  recorder.record(foo, { type: "Warning", reason: "Failed", note: "boom" });
  await recorder.flush();
  assert.equal(client.calls.length, 1, "a failed first write does not leave a broken series behind");
  await recorder[Symbol.asyncDispose]();
});

Deno.test("when the Event expired, the series update creates it anew with the series", async () => {
  const { client, clock, recorder } = setup();
  recorder.record(foo, { type: "Normal", reason: "Synced", note: "ok" });
  await clock.advance(1_000);
  client.failPatch = new ApiError({ code: 404, reason: "NotFound", message: "gone" });
  recorder.record(foo, { type: "Normal", reason: "Synced", note: "ok" });
  await recorder.flush();
  assert.deepEqual(client.calls.map((c) => c.op), ["create", "create"]);
  const second = client.calls[1];
  assert.ok(second?.op === "create");
  assert.equal(second.event.series?.count, 2);
  await recorder[Symbol.asyncDispose]();
});

Deno.test("series patch failures other than NotFound keep the Event and retry at the next interval", async () => {
  const failures = [
    new ApiError({ code: 500, reason: "InternalError", message: "etcd unavailable" }),
    new ApiError({ code: 429, reason: "TooManyRequests", message: "slow down" }),
    new DOMException("request timed out", "TimeoutError"),
  ];
  for (const failure of failures) {
    const { client, clock, recorder } = setup();
    recorder.record(foo, { type: "Normal", reason: "Synced", note: "ok" });
    await clock.advance(1_000);
    recorder.record(foo, { type: "Normal", reason: "Synced", note: "ok" });
    client.failPatch = failure;
    await clock.advance(29_000); // the first series patch fails
    assert.deepEqual(client.attempts, ["create", "patch"], `${failure.name}: no duplicate Event`);
    client.failPatch = undefined;
    await clock.advance(29_999);
    assert.equal(client.attempts.length, 2, `${failure.name}: retried before the interval`);
    await clock.advance(1);
    assert.deepEqual(client.calls.map((c) => c.op), ["create", "patch"], failure.name);
    const patch = client.calls[1];
    assert.ok(patch?.op === "patch");
    assert.equal((patch.patch as { series: { count: number } }).series.count, 2);
    await recorder[Symbol.asyncDispose]();
  }
});

Deno.test("long notes are truncated to the 1 KiB the API allows", async () => {
  const { client, recorder } = setup();
  recorder.record(foo, { type: "Normal", reason: "Long", note: "é".repeat(2000) });
  await recorder.flush();
  const call = client.calls[0];
  assert.ok(call?.op === "create");
  assert.ok(new TextEncoder().encode(call.event.note).length <= 1024);
  assert.ok(call.event.note?.endsWith("..."));
  await recorder[Symbol.asyncDispose]();
});
