// Bookmarks from the real kube-apiserver move the watcher's resourceVersion forward.
//
// How a bookmark is provoked in seconds (read from k8s.io/apiserver's cacher, v0.37): besides one
// roughly every minute, the watch cache sends a bookmark to every watcher with allowWatchBookmarks two
// seconds before the watch's deadline (`timeoutSeconds`). A bookmark carries the newest resourceVersion
// the cache has processed *for the whole resource*, and the server only sends it when that is newer
// than what this watch already delivered. So: watch one namespace with timeoutSeconds=5 and write a
// ConfigMap in another namespace; the watch never sees that object, but its bookmark (~3 s in) carries
// its resourceVersion, and the next watch must resume from there.
import assert from "node:assert/strict";
import { CONFIG_MAPS, type KubeObject, type WatchOptions } from "../../lib/client/mod.ts";
import { watcher, type WatcherEvent, type WatchEventType } from "../../lib/watch/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { createNamespace, eventually } from "../_util/testenv.ts";

Deno.test("a BOOKMARK newer than any object event becomes the resourceVersion of the next watch", async () => {
  await using watched = await createNamespace("bm-watched");
  await using elsewhere = await createNamespace("bm-elsewhere");
  await using client = await adminClient();
  const watches: WatchOptions[] = [];
  const wire: WatchEventType[] = [];
  const events: WatcherEvent[] = [];
  const stop = new AbortController();
  const source = watcher(client, CONFIG_MAPS, {
    namespace: watched.name,
    signal: stop.signal,
    initialList: "paged",
    timeoutSecondsRange: [5, 6],
    random: () => 0,
    hooks: {
      onWatch: (options) => void watches.push(options),
      onWireEvent: (type) => void wire.push(type),
    },
  });
  const consuming = (async () => {
    for await (const event of source) events.push(event);
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
  const seen = await client.create(CONFIG_MAPS, configMap("seen"), { namespace: watched.name });
  await eventually(() => events.find((e) => e.type === "apply"), { message: "the ADDED event" });
  const unseen = await client.create(CONFIG_MAPS, configMap("unseen"), { namespace: elsewhere.name });

  // The first watch ends after 5 s; the watcher opens the next one from the newest version it saw.
  await eventually(() => watches.length >= 2 || undefined, {
    timeoutMs: 15_000,
    message: "the second watch",
  });
  assert.ok(wire.includes("BOOKMARK"), `the server sent a bookmark (wire events: ${wire.join(", ")})`);
  const objectVersions = events.flatMap((e) =>
    e.type === "apply" || e.type === "delete" ? [e.object.metadata.resourceVersion ?? ""] : []
  );
  assert.deepEqual(
    objectVersions,
    [seen.metadata.resourceVersion],
    "the other namespace's object never arrived",
  );
  const resumedFrom = watches[1]?.resourceVersion ?? "";
  assert.equal(resumedFrom, unseen.metadata.resourceVersion, "only the bookmark carried this version");
  // resourceVersions are opaque to clients; etcd revisions are integers, which lets the test compare.
  assert.ok(
    BigInt(resumedFrom) > BigInt(seen.metadata.resourceVersion ?? ""),
    "newer than every object event",
  );
  assert.equal(events.some((e) => e.type === "error"), false, "a clean timeout is not an error");
});

function configMap(name: string): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v" } };
}
