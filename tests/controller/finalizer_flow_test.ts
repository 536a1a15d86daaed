import assert from "node:assert/strict";
import { finalizer, hasFinalizer } from "../../lib/controller/mod.ts";
import { CONFIG_MAPS, type ConfigMap } from "../../lib/resources/mod.ts";
import { FakeApi, FakeClock, FakeEventRecorder } from "../../lib/testing/mod.ts";

const F = "example.com/cleanup";

function setup() {
  const api = new FakeApi({ clock: new FakeClock(Date.UTC(2026, 0, 1)) });
  const [obj] = api.seed(CONFIG_MAPS, { metadata: { name: "a", namespace: "ns" } });
  const recorder = new FakeEventRecorder();
  const calls: string[] = [];
  const handlers = {
    apply: (o: ConfigMap | Readonly<ConfigMap>) => {
      calls.push(`apply ${hasFinalizer(o, F)}`);
      return Promise.resolve({ requeueAfterMs: 60_000 });
    },
    cleanup: () => {
      calls.push("cleanup");
      return Promise.resolve();
    },
  };
  return { api, obj: obj!, recorder, calls, handlers };
}

const stored = (api: FakeApi) => api.object(CONFIG_MAPS, "a", "ns");

Deno.test("finalizer adds itself to a live object, then runs apply with the stored object", async () => {
  const { api, obj, recorder, calls, handlers } = setup();
  const action = await finalizer(api, CONFIG_MAPS, obj, F, handlers, { recorder });
  assert.deepEqual(action, { requeueAfterMs: 60_000 }, "apply's answer is returned");
  assert.deepEqual(calls, ["apply true"]);
  assert.deepEqual(stored(api)?.metadata.finalizers, [F]);
  await finalizer(api, CONFIG_MAPS, stored(api)!, F, handlers, { recorder });
  assert.deepEqual(calls, ["apply true", "apply true"]);
  assert.equal(api.requests.filter((r) => r.verb === "patch").length, 1, "added once");
  assert.deepEqual(recorder.events, []);
});

Deno.test("on deletion it runs cleanup, removes itself (the object goes) and records CleanedUp", async () => {
  const { api, obj, recorder, calls, handlers } = setup();
  await finalizer(api, CONFIG_MAPS, obj, F, handlers);
  await api.delete(CONFIG_MAPS, "a", { namespace: "ns" });
  const terminating = stored(api)!;
  assert.ok(terminating.metadata.deletionTimestamp, "held by the finalizer");
  assert.equal(await finalizer(api, CONFIG_MAPS, terminating, F, handlers, { recorder }), undefined);
  assert.deepEqual(calls, ["apply true", "cleanup"]);
  assert.equal(stored(api), undefined, "deleted once the finalizer was removed");
  assert.deepEqual(recorder.reasons(), ["CleanedUp"]);
});

Deno.test("a failed cleanup keeps the finalizer, records a Warning and rethrows for the backoff", async () => {
  const { api, obj, recorder, handlers } = setup();
  await finalizer(api, CONFIG_MAPS, obj, F, handlers);
  await api.delete(CONFIG_MAPS, "a", { namespace: "ns" });
  const failing = { ...handlers, cleanup: () => Promise.reject(new Error("bucket still in use")) };
  await assert.rejects(
    finalizer(api, CONFIG_MAPS, stored(api)!, F, failing, { recorder }),
    /bucket still in use/,
  );
  assert.deepEqual(stored(api)?.metadata.finalizers, [F], "the object stays until cleanup succeeds");
  assert.deepEqual(recorder.reasons(), ["CleanupFailed"]);
  assert.match(recorder.events[0]!.note, /example\.com\/cleanup: bucket still in use/);
  assert.equal(recorder.events[0]!.type, "Warning");
});

Deno.test("a terminating object without the finalizer is left alone", async () => {
  const { api, recorder, calls, handlers } = setup();
  api.seed(CONFIG_MAPS, { metadata: { name: "b", namespace: "ns", finalizers: ["other/x"] } });
  await api.delete(CONFIG_MAPS, "b", { namespace: "ns" });
  const b = api.object(CONFIG_MAPS, "b", "ns")!;
  assert.equal(await finalizer(api, CONFIG_MAPS, b, F, handlers, { recorder }), undefined);
  assert.deepEqual(calls, []);
  assert.deepEqual(recorder.events, []);
});

Deno.test("a cleanup that is not done yet keeps the finalizer without a Warning, and requeues", async () => {
  const { api, obj, recorder, handlers } = setup();
  await finalizer(api, CONFIG_MAPS, obj, F, handlers);
  await api.delete(CONFIG_MAPS, "a", { namespace: "ns" });
  let outside = 2; // e.g. a Namespace still being emptied: two more looks before it is gone
  const waiting = {
    ...handlers,
    cleanup: () => Promise.resolve(--outside > 0 ? { requeueAfterMs: 5_000 } : undefined),
  };
  const first = await finalizer(api, CONFIG_MAPS, stored(api)!, F, waiting, { recorder });
  assert.deepEqual(first, { requeueAfterMs: 5_000 }, "the clean-up's answer is returned");
  assert.deepEqual(stored(api)?.metadata.finalizers, [F], "the object stays while the clean-up waits");
  assert.deepEqual(recorder.events, [], "waiting is no failure: no event");
  assert.equal(await finalizer(api, CONFIG_MAPS, stored(api)!, F, waiting, { recorder }), undefined);
  assert.equal(stored(api), undefined, "done: the finalizer went and so did the object");
  assert.deepEqual(recorder.reasons(), ["CleanedUp"]);
});

Deno.test("a cleanup resolving with nothing to requeue ({}) is done", async () => {
  const { api, obj, handlers } = setup();
  await finalizer(api, CONFIG_MAPS, obj, F, handlers);
  await api.delete(CONFIG_MAPS, "a", { namespace: "ns" });
  const done = { ...handlers, cleanup: () => Promise.resolve({ requeueAfterMs: 0 }) };
  assert.equal(await finalizer(api, CONFIG_MAPS, stored(api)!, F, done), undefined);
  assert.equal(stored(api), undefined);
});
