/**
 * Under `exactOptionalPropertyTypes` (which this project and many users compile with), an optional
 * `signal?: AbortSignal` refuses `{ signal: undefined }`, so every call with a maybe-signal needed
 * `...(signal ? { signal } : {})`. Every option bag takes `AbortSignal | undefined`; `deno check` proves
 * the calls below compile (they would not on the old types), and the test runs a few of them.
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../lib/client/mod.ts";
import { addFinalizer, apply, createOrPatch } from "../../lib/controller/mod.ts";
import { CONFIG_MAPS, type ConfigMap } from "../../lib/resources/mod.ts";
import { sleep } from "../../lib/time/clock.ts";
import { WorkQueue } from "../../lib/queue/mod.ts";
import { withBackoff } from "../../lib/watch/mod.ts";
import type { WatcherEvent } from "../../lib/watch/watcher_event.ts";

// Type-level only: never called.
async function _maybeSignal(
  client: KubeClient,
  cm: ConfigMap,
  signal: AbortSignal | undefined,
): Promise<void> {
  await client.get(CONFIG_MAPS, "a", { namespace: "ns", signal });
  await client.list(CONFIG_MAPS, { signal });
  await client.create(CONFIG_MAPS, cm, { signal });
  await client.patch(CONFIG_MAPS, "a", {}, { type: "merge", signal });
  await client.delete(CONFIG_MAPS, "a", { signal });
  await apply(client, CONFIG_MAPS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } }, {
    fieldManager: "m",
    signal,
  });
  await createOrPatch(client, CONFIG_MAPS, { name: "a" }, () => {}, { signal });
  await addFinalizer(client, CONFIG_MAPS, cm, "f", { signal });
}

Deno.test("options take signal: undefined", async () => {
  const signal: AbortSignal | undefined = undefined;
  await sleep(0, { signal });
  const queue = new WorkQueue<string>();
  queue.add("k");
  assert.equal(await queue.get({ signal }), "k");
  queue.shutDown();
  async function* one(): AsyncGenerator<WatcherEvent> {
    yield { type: "init" };
  }
  const seen: string[] = [];
  for await (const event of withBackoff(one(), { signal })) seen.push(event.type);
  assert.deepEqual(seen, ["init"]);
  assert.equal(typeof _maybeSignal, "function");
});
