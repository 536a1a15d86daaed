/**
 * Unit tests of the ConfigMapMirror controller on lib/testing: the whole controller (informers, queue,
 * reconcile) runs against an in-memory FakeApi, with cached objects frozen so a stray mutation fails.
 *
 *   deno test examples/configmap_mirror/mirror_test.ts
 */
import assert from "node:assert/strict";
import { CONFIG_MAPS, type ConfigMap, Controller, SharedInformerFactory } from "../../lib/mod.ts";
import { FakeApi, FakeEventRecorder } from "../../lib/testing/mod.ts";
import { mirrorController, SOURCE_LABEL } from "./mirror.ts";

/** The controller running on a FakeApi; dispose to stop it. */
function running(api: FakeApi) {
  const informers = new SharedInformerFactory(api, { freezeObjects: true });
  const recorder = new FakeEventRecorder();
  const c = new Controller(informers, mirrorController({ informers, client: api, recorder }));
  const stop = new AbortController();
  informers.start(stop.signal);
  const done = c.run({ signal: stop.signal });
  return {
    recorder,
    /** Waits until `check` holds (the controller works asynchronously). */
    async until(check: () => boolean, what: string): Promise<void> {
      for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
      assert.ok(check(), `timed out waiting for: ${what}`);
    },
    async [Symbol.asyncDispose]() {
      stop.abort();
      await done;
      await informers.stopped();
    },
  };
}

function source(name: string, data: Record<string, string>, labels = { mirror: "true" }): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "app", labels }, data };
}

Deno.test("a labelled ConfigMap gets an owned copy with the same data, and only labelled ones do", async () => {
  const api = new FakeApi();
  const [settings] = api.seed(
    CONFIG_MAPS,
    source("settings", { a: "1" }),
    source("plain", { b: "2" }, { mirror: "no" }),
  );
  await using ctl = running(api);
  await ctl.until(() => api.object(CONFIG_MAPS, "settings-mirror", "app") !== undefined, "the copy");
  const copy = api.object(CONFIG_MAPS, "settings-mirror", "app")!;
  assert.deepEqual(copy.data, { a: "1" });
  assert.equal(copy.metadata.labels?.[SOURCE_LABEL], "settings");
  assert.deepEqual(copy.metadata.ownerReferences, [{
    apiVersion: "v1",
    kind: "ConfigMap",
    name: "settings",
    uid: settings!.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  }]);
  assert.equal(api.object(CONFIG_MAPS, "plain-mirror", "app"), undefined);
  assert.deepEqual(ctl.recorder.reasons(), ["Mirrored"]);
});

Deno.test("the copy follows the source's data exactly, and a hand edit of the copy is undone", async () => {
  const api = new FakeApi();
  api.seed(CONFIG_MAPS, source("settings", { a: "1", b: "2" }));
  await using ctl = running(api);
  const copyData = () => JSON.stringify(api.object(CONFIG_MAPS, "settings-mirror", "app")?.data ?? null);
  await ctl.until(() => copyData() === '{"a":"1","b":"2"}', "the first copy");
  await api.patch(CONFIG_MAPS, "settings", { data: { a: "10", b: null } }, {
    type: "merge",
    namespace: "app",
  });
  await ctl.until(() => copyData() === '{"a":"10"}', "the copy to drop b and change a");
  await api.patch(CONFIG_MAPS, "settings-mirror", { data: { a: "tampered" } }, {
    type: "merge",
    namespace: "app",
  });
  await ctl.until(() => copyData() === '{"a":"10"}', "the hand edit to be undone");
});

Deno.test("removing the label deletes the copy; deleting the source lets it be collected", async () => {
  const api = new FakeApi();
  api.seed(CONFIG_MAPS, source("one", { a: "1" }), source("two", { b: "2" }));
  await using ctl = running(api);
  const exists = (name: string) => api.object(CONFIG_MAPS, name, "app") !== undefined;
  await ctl.until(() => exists("one-mirror") && exists("two-mirror"), "both copies");
  await api.patch(CONFIG_MAPS, "one", { metadata: { labels: { mirror: null } } }, {
    type: "merge",
    namespace: "app",
  });
  await ctl.until(() => !exists("one-mirror"), "the copy of the unlabelled source to go");
  assert.ok(exists("one"), "the source itself stays");
  await api.delete(CONFIG_MAPS, "two", { namespace: "app" });
  await ctl.until(() => !exists("two-mirror"), "the copy of the deleted source to go");
});

Deno.test("a <name>-mirror controlled by someone else is left alone, with a warning event", async () => {
  const api = new FakeApi();
  api.seed(CONFIG_MAPS, {
    metadata: {
      name: "settings-mirror",
      namespace: "app",
      labels: { [SOURCE_LABEL]: "settings" },
      ownerReferences: [{
        apiVersion: "v1",
        kind: "Secret",
        name: "other",
        uid: "u-other",
        controller: true,
      }],
    },
    data: { theirs: "yes" },
  }, source("settings", { a: "1" }));
  await using ctl = running(api);
  await ctl.until(() => ctl.recorder.reasons().includes("MirrorConflict"), "the conflict event");
  assert.deepEqual(api.object(CONFIG_MAPS, "settings-mirror", "app")?.data, { theirs: "yes" });
  assert.equal(api.requests.filter((r) => r.verb === "patch").length, 0, "no write");
});
