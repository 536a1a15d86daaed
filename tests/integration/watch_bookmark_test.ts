// Bookmarks from the real kube-apiserver move the watcher's resourceVersion forward.
//
// How a bookmark is provoked in seconds (read from k8s.io/apiserver's cacher, v0.37): besides one
// roughly every minute, the watch cache sends a bookmark to every watcher with allowWatchBookmarks two
// seconds before the watch's deadline (`timeoutSeconds`). A bookmark carries the newest resourceVersion
// the cache has processed *for the whole resource*, and the server only sends it when that is newer
// than what this watch already delivered. So: watch one namespace with timeoutSeconds=5 and write a
// ConfigMap in another namespace; the watch never sees that object, but its bookmark (~3 s in) carries
// its resourceVersion (or a newer one), and the next watch must resume from there.
import assert from "node:assert/strict";
import { CONFIG_MAPS, type ConfigMap } from "../../lib/resources/mod.ts";
import { type RawWatchOptions } from "../../lib/client/mod.ts";
import { type RawWatchEventType, watcher, type WatcherEvent } from "../../lib/watch/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { createNamespace, eventually } from "../_util/testenv.ts";

Deno.test("a BOOKMARK newer than any object event becomes the resourceVersion of the next watch", async () => {
  await using watched = await createNamespace("bm-watched");
  await using elsewhere = await createNamespace("bm-elsewhere");
  await using client = await adminClient();
  /** Each watch's options, with the newest object version delivered before it started. */
  const watches: (RawWatchOptions & { newestObject: bigint })[] = [];
  const wire: RawWatchEventType[] = [];
  const events: WatcherEvent[] = [];
  let newestObject = 0n;
  const stop = new AbortController();
  const source = watcher(client, CONFIG_MAPS, {
    namespace: watched.name,
    signal: stop.signal,
    initialList: "paged",
    timeoutSecondsRange: [5, 6],
    random: () => 0,
    hooks: {
      onWatch: (options) => void watches.push({ ...options, newestObject }),
      onWireEvent: (type) => void wire.push(type),
    },
  });
  const consuming = (async () => {
    for await (const event of source) {
      events.push(event);
      if (event.type === "apply" || event.type === "delete") {
        const rv = BigInt(event.object.metadata.resourceVersion ?? "0");
        if (rv > newestObject) newestObject = rv;
      }
    }
  })();
  await using _stop = {
    async [Symbol.asyncDispose]() {
      stop.abort();
      await consuming;
    },
  };

  await eventually(() => watches.length === 1 || undefined, { message: "the first watch" });
  assert.equal(watches[0]?.allowWatchBookmarks, true);
  assert.equal(watches[0]?.timeoutSeconds, 5);
  await client.create(CONFIG_MAPS, configMap("seen"), { namespace: watched.name });
  await eventually(() => events.find((e) => e.type === "apply" && e.object.metadata.name === "seen"), {
    message: "the ADDED event",
  });
  const unseen = await client.create(CONFIG_MAPS, configMap("unseen"), { namespace: elsewhere.name });
  const unseenVersion = BigInt(unseen.metadata.resourceVersion ?? "");

  // Each watch ends after 5 s, and two seconds before that the server sends a bookmark with the newest
  // ConfigMap version it has processed, if newer than what the watch delivered. The first watch to run
  // after "unseen" was written therefore ends on a bookmark at least that new, and the watcher resumes
  // from it. Waiting for that (up to three watches), not for a fixed window, keeps a slow machine fine.
  const resumed = await eventually(
    () => watches.slice(1).find((w) => BigInt(w.resourceVersion ?? "0") >= unseenVersion),
    { timeoutMs: 3 * 6_000 + 10_000, message: `a watch resuming from ${unseenVersion} or later` },
  );
  assert.ok(wire.includes("BOOKMARK"), `the server sent a bookmark (wire events: ${wire.join(", ")})`);
  assert.ok(
    events.every((e) => !(e.type === "apply" || e.type === "delete") || e.object.metadata.name !== "unseen"),
    "the other namespace's object never arrived",
  );
  assert.equal(events.filter((e) => e.type === "initDone").length, 1, "no relist: only watches resumed");
  // resourceVersions are opaque to clients; etcd revisions are integers, which lets the test compare.
  const resumedFrom = BigInt(resumed.resourceVersion ?? "");
  assert.ok(
    resumedFrom > resumed.newestObject,
    `resumed from ${resumedFrom}, newer than every object event (${resumed.newestObject}): a bookmark's`,
  );
  assert.equal(events.some((e) => e.type === "error"), false, "a clean timeout is not an error");
});

function configMap(name: string): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v" } };
}
