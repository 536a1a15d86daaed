import assert from "node:assert/strict";
import { ApiError } from "../../lib/client/mod.ts";
import {
  addFinalizer,
  hasFinalizer,
  isTerminating,
  removeFinalizer,
  terminatingForMs,
} from "../../lib/controller/mod.ts";
import { CONFIG_MAPS, type ConfigMap } from "../../lib/resources/mod.ts";
import { FakeApi, FakeClock } from "../../lib/testing/mod.ts";

const F = "example.com/cleanup";

function setup(): { api: FakeApi; obj: ConfigMap } {
  const api = new FakeApi({ clock: new FakeClock(Date.UTC(2026, 0, 1)) });
  const [obj] = api.seed(CONFIG_MAPS, {
    metadata: { name: "a", namespace: "ns", finalizers: ["other/one"] },
  });
  return { api, obj: obj! };
}

Deno.test("addFinalizer appends once; removeFinalizer takes only its own", async () => {
  const { api, obj } = setup();
  const added = await addFinalizer(api, CONFIG_MAPS, obj, F);
  assert.deepEqual(added.metadata.finalizers, ["other/one", F]);
  const again = await addFinalizer(api, CONFIG_MAPS, added, F);
  assert.equal(again, added, "nothing to do: no write");
  assert.equal(api.requests.filter((r) => r.verb === "patch").length, 1);
  const removed = await removeFinalizer(api, CONFIG_MAPS, added, F);
  assert.deepEqual(removed?.metadata.finalizers, ["other/one"]);
  assert.equal(hasFinalizer(removed!, F), false);
});

Deno.test("a conflict re-reads the object, so a finalizer another client added meanwhile survives", async () => {
  const { api, obj } = setup();
  // Someone else adds a finalizer after we read `obj`: our write, conditional on the old version, gets 409.
  await api.patch(CONFIG_MAPS, "a", { metadata: { finalizers: ["other/one", "third/party"] } }, {
    type: "merge",
    namespace: "ns",
  });
  const added = await addFinalizer(api, CONFIG_MAPS, obj, F);
  assert.deepEqual(added.metadata.finalizers, ["other/one", "third/party", F]);
  assert.deepEqual(api.requests.slice(-3).map((r) => r.verb), ["patch", "get", "patch"]);
});

Deno.test("conflicts beyond the retry budget reach the caller as the ApiError", async () => {
  const { api, obj } = setup();
  const conflict = new ApiError({ code: 409, reason: "Conflict", message: "modified" });
  api.fail({ verb: "patch", times: 3, error: conflict });
  await assert.rejects(addFinalizer(api, CONFIG_MAPS, obj, F, { conflictRetries: 2 }), (e) => e === conflict);
});

Deno.test("no finalizer is added to an object being deleted; removing the last one lets it go", async () => {
  const { api, obj } = setup();
  const ours = await addFinalizer(api, CONFIG_MAPS, obj, F);
  await api.delete(CONFIG_MAPS, "a", { namespace: "ns" });
  const terminating = api.object(CONFIG_MAPS, "a", "ns")!;
  assert.equal(isTerminating(terminating), true);
  assert.equal(terminatingForMs(terminating, Date.UTC(2026, 0, 1, 0, 10)), 600_000);
  assert.equal(terminatingForMs(ours, Date.UTC(2026, 0, 1, 0, 10)), undefined);
  assert.equal(await addFinalizer(api, CONFIG_MAPS, terminating, "late/comer"), terminating);
  const afterOurs = await removeFinalizer(api, CONFIG_MAPS, terminating, F);
  assert.deepEqual(afterOurs?.metadata.finalizers, ["other/one"]);
  const last = await removeFinalizer(api, CONFIG_MAPS, afterOurs!, "other/one");
  assert.deepEqual(last?.metadata.finalizers, [], "the final state");
  assert.equal(api.object(CONFIG_MAPS, "a", "ns"), undefined, "and the object is gone");
  assert.equal(
    await removeFinalizer(api, CONFIG_MAPS, afterOurs!, "other/one"),
    undefined,
    "already gone is fine",
  );
});
