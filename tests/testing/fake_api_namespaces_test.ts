// FakeApi treats Namespaces as kube-apiserver and the namespace controller do: a new Namespace carries the
// "kubernetes" finalizer in its spec; deleting it answers with the marked, Terminating Namespace, deletes
// its content (finalizers respected) and removes it once empty; nothing new can be created in it meanwhile.
import assert from "node:assert/strict";
import { ApiError } from "../../lib/client/mod.ts";
import { CONFIG_MAPS, type Namespace, NAMESPACES } from "../../lib/resources/mod.ts";
import { FakeApi } from "../../lib/testing/mod.ts";
import type { WriteEnd } from "../../lib/client/mod.ts";

/** The answers FakeApi reports to write listeners, by verb and resource. */
function answers(api: FakeApi): Map<string, unknown> {
  const seen = new Map<string, unknown>();
  api.onWrite((write) => (end: WriteEnd) => {
    if (end.ok) seen.set(`${write.verb} ${write.ref.plural}`, end.answer);
  });
  return seen;
}

Deno.test("a new Namespace carries the namespace controller's finalizer and is Active", async () => {
  const api = new FakeApi();
  const created = await api.create(NAMESPACES, { metadata: { name: "team" } });
  assert.deepEqual(created.spec?.finalizers, ["kubernetes"]);
  assert.equal(created.status?.phase, "Active");
  const [seeded] = api.seed(NAMESPACES, { metadata: { name: "seeded" }, spec: { finalizers: [] } });
  assert.deepEqual(seeded?.spec?.finalizers, [], "a given spec is kept");
});

Deno.test("deleting a Namespace answers with it Terminating, deletes its content, then removes it", async () => {
  const api = new FakeApi();
  const seen = answers(api);
  await api.create(NAMESPACES, { metadata: { name: "team" } });
  api.seed(CONFIG_MAPS, { metadata: { name: "a", namespace: "team" } }, {
    metadata: { name: "b", namespace: "other" },
  });
  await api.delete(NAMESPACES, "team");
  const answer = seen.get("delete namespaces") as Namespace;
  assert.equal(answer.kind, "Namespace", "the server answers with the object, not a Status");
  assert.ok(answer.metadata.deletionTimestamp);
  assert.equal(answer.status?.phase, "Terminating");
  assert.deepEqual(answer.spec?.finalizers, ["kubernetes"]);
  assert.equal(answer.metadata.deletionGracePeriodSeconds, undefined);
  assert.equal(api.object(CONFIG_MAPS, "a", "team"), undefined, "its content is deleted");
  assert.ok(api.object(CONFIG_MAPS, "b", "other"), "other namespaces' content is not");
  assert.equal(api.object(NAMESPACES, "team"), undefined, "empty: removed");
});

Deno.test("content with a finalizer holds its Namespace Terminating, and new content is refused", async () => {
  const api = new FakeApi();
  await api.create(NAMESPACES, { metadata: { name: "team" } });
  api.seed(CONFIG_MAPS, { metadata: { name: "held", namespace: "team", finalizers: ["example.com/x"] } });
  await api.delete(NAMESPACES, "team");
  assert.equal(api.object(NAMESPACES, "team")?.status?.phase, "Terminating");
  assert.ok(api.object(CONFIG_MAPS, "held", "team")?.metadata.deletionTimestamp, "the content is marked");
  await assert.rejects(
    api.create(CONFIG_MAPS, { metadata: { name: "new", namespace: "team" } }),
    (e: unknown) => e instanceof ApiError && e.code === 403 && /being terminated/.test(e.message),
  );
  await assert.rejects(
    api.patch(CONFIG_MAPS, "new", { metadata: { name: "new" } }, {
      type: "apply",
      fieldManager: "m",
      namespace: "team",
    }),
    (e: unknown) => e instanceof ApiError && e.code === 403,
  );
  await api.patch(NAMESPACES, "team", { metadata: { labels: { x: "1" } } }, { type: "merge" });
  assert.ok(api.object(NAMESPACES, "team"), "a write to the Namespace does not finish it");
  await api.patch(CONFIG_MAPS, "held", { metadata: { finalizers: null } }, {
    type: "merge",
    namespace: "team",
  });
  assert.equal(api.object(CONFIG_MAPS, "held", "team"), undefined);
  assert.equal(api.object(NAMESPACES, "team"), undefined, "the last content went: the Namespace goes");
});

Deno.test("a Namespace's own metadata finalizer holds it after its content is gone", async () => {
  const api = new FakeApi();
  await api.create(NAMESPACES, { metadata: { name: "team", finalizers: ["example.com/ns"] } });
  await api.delete(NAMESPACES, "team");
  const terminating = api.object(NAMESPACES, "team");
  assert.deepEqual(terminating?.spec?.finalizers, [], "the namespace controller has finished");
  assert.equal(terminating?.status?.phase, "Terminating");
  await api.patch(NAMESPACES, "team", { metadata: { finalizers: null } }, { type: "merge" });
  assert.equal(api.object(NAMESPACES, "team"), undefined);
});
