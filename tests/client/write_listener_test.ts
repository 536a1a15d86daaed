// KubeClient tells its write listeners of every write before it is sent, and of its answer before the
// caller's await resumes: what an informer needs to cache a write at once.
import assert from "node:assert/strict";
import { ApiError, KubeClient, type WriteEnd, type WriteStart } from "../../lib/client/mod.ts";
import { CONFIG_MAPS, DEPLOYMENTS } from "../../lib/resources/mod.ts";
import { type LogLine, MemoryLogger } from "../../lib/testing/mod.ts";
import { json, ScriptedTransport, statusAnswer } from "../_util/scripted_transport.ts";

const config = {
  server: new URL("https://api.example:6443"),
  tls: {},
  namespace: "team",
  source: "test",
  inCluster: false,
  credentials: { get: () => Promise.resolve({ token: "t" }), invalidate: () => {} },
};
const cm = (name: string, rv: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "team", resourceVersion: rv },
});

/** A client over `transport` whose listener records "start verb name sub" and "end ok answerRV" lines. */
function observed(transport: ScriptedTransport, lines: LogLine[] = []) {
  const client = new KubeClient(config, { transport, logger: new MemoryLogger(lines) });
  const seen: string[] = [];
  const starts: WriteStart[] = [];
  client.onWrite((write) => {
    starts.push(write);
    seen.push(
      `start ${write.verb} ${write.namespace}/${write.name}${
        write.subresource ? `/${write.subresource}` : ""
      }`,
    );
    return (end: WriteEnd) => {
      const answer = end.ok
        ? end.answer as { kind?: string; metadata?: { resourceVersion?: string } }
        : undefined;
      seen.push(
        `end ${end.ok ? `ok ${answer?.kind}@${answer?.metadata?.resourceVersion ?? "-"}` : "failed"}`,
      );
    };
  });
  return { client, seen, starts };
}

Deno.test("each write is reported before it is sent and with its answer before the caller resumes", async () => {
  const t = new ScriptedTransport([
    json(201, cm("a", "1")),
    json(200, cm("a", "2")),
    json(200, cm("a", "3")),
    json(200, { ...cm("a", "4"), status: {} }),
    json(200, { kind: "Status", apiVersion: "v1", status: "Success", details: { name: "a", uid: "u" } }),
  ]);
  const { client, seen, starts } = observed(t);
  await client.create(CONFIG_MAPS, cm("a", ""));
  seen.push("caller resumed");
  await client.replace(CONFIG_MAPS, cm("a", "1"));
  await client.patch(CONFIG_MAPS, "a", { data: { x: "1" } }, { type: "merge" });
  await client.patch(DEPLOYMENTS, "a", { status: {} }, {
    type: "apply",
    fieldManager: "m",
    subresource: "status",
  });
  await client.delete(CONFIG_MAPS, "a", { preconditions: { resourceVersion: "4" } });
  assert.deepEqual(seen, [
    "start create team/a",
    "end ok ConfigMap@1",
    "caller resumed",
    "start replace team/a",
    "end ok ConfigMap@2",
    "start patch team/a",
    "end ok ConfigMap@3",
    "start patch team/a/status",
    "end ok ConfigMap@4",
    "start delete team/a",
    "end ok Status@-",
  ]);
  assert.equal(starts[2]?.patchType, "merge");
  assert.deepEqual(starts[2]?.body, { data: { x: "1" } });
  assert.deepEqual(starts[4]?.body, {
    apiVersion: "v1",
    kind: "DeleteOptions",
    preconditions: { resourceVersion: "4" },
  });
  assert.equal(t.requests.length, 5);
});

Deno.test("a failed write ends without an answer; a dry run is not reported; a throwing listener is logged", async () => {
  const t = new ScriptedTransport([
    statusAnswer(409, "Conflict", "the object has been modified"),
    json(200, cm("a", "9")),
    json(200, cm("a", "10")),
  ]);
  const lines: LogLine[] = [];
  const { client, seen } = observed(t, lines);
  await assert.rejects(client.patch(CONFIG_MAPS, "a", {}, { type: "merge" }), (e) => e instanceof ApiError);
  await client.patch(CONFIG_MAPS, "a", {}, { type: "merge", dryRun: true });
  const unsubscribe = client.onWrite(() => {
    throw new Error("listener bug");
  });
  const out = await client.patch(CONFIG_MAPS, "a", {}, { type: "merge" });
  unsubscribe();
  assert.equal(out.metadata.resourceVersion, "10", "the write itself is unaffected");
  assert.deepEqual(seen, ["start patch team/a", "end failed", "start patch team/a", "end ok ConfigMap@10"]);
  assert.ok(lines.some((l) => l.msg === "Write listener failed"), JSON.stringify(lines));
});
