// FakeApi reports its writes like KubeClient, with the server's answers: the object as stored, a Status for
// a delete without finalizers, the marked object (deletionGracePeriodSeconds 0) while finalizers hold it.
import assert from "node:assert/strict";
import type { WriteEnd } from "../../lib/client/mod.ts";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import { FakeApi, type FakeRequest } from "../../lib/testing/mod.ts";

Deno.test("writes are reported before they are served and with the server's answer after", async () => {
  const api = new FakeApi();
  const seen: string[] = [];
  const answers: unknown[] = [];
  const stop = api.onWrite((write) => {
    seen.push(`start ${write.verb} ${write.namespace}/${write.name}${write.subresource ? "/status" : ""}`);
    return (end: WriteEnd) => {
      seen.push(end.ok ? "ok" : "failed");
      if (end.ok) answers.push(end.answer);
    };
  });
  await api.create(CONFIG_MAPS, { metadata: { name: "a", namespace: "ns", finalizers: ["f"] } });
  await api.create(CONFIG_MAPS, { metadata: { name: "a", namespace: "ns" } }).catch(() => {});
  await api.replaceStatus(CONFIG_MAPS, { metadata: { name: "a", namespace: "ns" } });
  await api.delete(CONFIG_MAPS, "a", { namespace: "ns" });
  await api.create(CONFIG_MAPS, { metadata: { name: "b", namespace: "ns" } }, { dryRun: true });
  await api.create(CONFIG_MAPS, { metadata: { name: "b", namespace: "ns" } });
  await api.delete(CONFIG_MAPS, "b", { namespace: "ns" });
  stop();
  await api.patch(CONFIG_MAPS, "a", { metadata: { finalizers: null } }, { type: "merge", namespace: "ns" });
  assert.deepEqual(seen, [
    "start create ns/a",
    "ok",
    "start create ns/a",
    "failed",
    "start replace ns/a/status",
    "ok",
    "start delete ns/a",
    "ok",
    "start create ns/b",
    "ok",
    "start delete ns/b",
    "ok",
  ]);
  const [, , marked, , gone] = answers as {
    kind?: string;
    metadata: Record<string, unknown>;
    details?: unknown;
  }[];
  assert.equal(marked?.metadata.deletionGracePeriodSeconds, 0, "marked, as the server answers");
  assert.ok(marked?.metadata.deletionTimestamp);
  assert.equal(gone?.kind, "Status");
  assert.deepEqual((gone?.details as { uid?: string }).uid !== undefined, true, "the Status names the uid");
});

Deno.test("beforeAnswer runs after the write is stored and its watch event sent, before the caller resumes", async () => {
  const order: string[] = [];
  const api: FakeApi = new FakeApi({
    beforeAnswer: (request: FakeRequest) => {
      order.push(
        `beforeAnswer ${request.verb} ${request.name} stored=${
          api.object(CONFIG_MAPS, "a", "ns") !== undefined
        }`,
      );
    },
  });
  await api.create(CONFIG_MAPS, { metadata: { name: "a", namespace: "ns" } });
  order.push("resumed");
  await api.patch(CONFIG_MAPS, "missing", {}, { type: "merge", namespace: "ns" }).catch(() =>
    order.push("404")
  );
  assert.deepEqual(order, ["beforeAnswer create a stored=true", "resumed", "404"]);
});
