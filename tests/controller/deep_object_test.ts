// A custom resource with `x-kubernetes-preserve-unknown-fields` may nest as deep as the API server's JSON
// decoder allows (10,000 levels). Such an object goes through the whole path here — list decoder, watch
// decoder, the informer's freeze, the store, mutableCopy, createOrPatch's merge patch — and comes out intact.
import assert from "node:assert/strict";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import type { ClusterConfig } from "../../lib/config/types.ts";
import { createOrPatch } from "../../lib/controller/mod.ts";
import type { HttpRequest, HttpResponse, Transport } from "../../lib/http/types.ts";
import { type KubeObject, mutableCopy, type ResourceRef } from "../../lib/resources/mod.ts";
import { responseOf } from "../_util/scripted_transport.ts";

const DEPTH = 10_000;

interface Deep extends KubeObject {
  spec: unknown;
}

const DEEPS: ResourceRef<Deep> = {
  group: "example.test",
  version: "v1",
  plural: "deeps",
  kind: "Deep",
  namespaced: true,
};

/** `{"a":{"a":...{"leaf":leaf}}}`, `depth` objects deep. */
function nested(depth: number, leaf: string): unknown {
  let value: unknown = { leaf };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

function deep(resourceVersion: string, leaf: string): Deep {
  return {
    apiVersion: "example.test/v1",
    kind: "Deep",
    metadata: { name: "d", namespace: "ns", resourceVersion },
    spec: nested(DEPTH, leaf),
  };
}

/** Lists one deep object, then watches: one MODIFIED event, the stream left open; PATCHes are recorded. */
class DeepApiServer implements Transport {
  readonly patches: string[] = [];

  request(request: HttpRequest): Promise<HttpResponse> {
    const json = (value: unknown) =>
      responseOf({
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(value),
      });
    if (request.method === "PATCH") {
      this.patches.push(String(request.body));
      return Promise.resolve(json(deep("3", "patched")));
    }
    if (request.url.searchParams.get("watch") !== "true") {
      return Promise.resolve(json({
        apiVersion: "example.test/v1",
        kind: "DeepList",
        metadata: { resourceVersion: "1" },
        items: [deep("1", "listed")],
      }));
    }
    const line = new TextEncoder().encode(
      `${JSON.stringify({ type: "MODIFIED", object: deep("2", "watched") })}\n`,
    );
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(line);
        const stop = () => controller.error(request.signal?.reason);
        if (request.signal?.aborted) stop();
        else request.signal?.addEventListener("abort", stop, { once: true });
      },
    });
    return Promise.resolve({
      status: 200,
      statusText: "OK",
      headers: new Headers({ "content-type": "application/json" }),
      body,
      bytes: () => Promise.reject(new Error("a watch is streamed")),
      text: () => Promise.reject(new Error("a watch is streamed")),
      cancel: () => body.cancel().catch(() => {}),
    });
  }

  close(): void {}
}

const config: ClusterConfig = {
  server: new URL("https://api.example:6443"),
  tls: {},
  namespace: "ns",
  source: "test",
  inCluster: false,
  credentials: { get: () => Promise.resolve({ token: "t" }), invalidate: () => {} },
};

/** The leaf of `nested`, found with a loop. */
function leafOf(value: unknown): unknown {
  let at = value as Record<string, unknown>;
  while ("a" in at) at = at["a"] as Record<string, unknown>;
  return at["leaf"];
}

Deno.test("attack: an object nested 10,000 deep is listed, watched, frozen, copied and patched", async () => {
  const server = new DeepApiServer();
  await using client = new KubeClient(config, { transport: server });
  const factory = new SharedInformerFactory(client, { freezeObjects: true });
  const informer = factory.informer(DEEPS);
  const stop = new AbortController();
  factory.start(stop.signal);
  const deadline = setTimeout(() => stop.abort(new Error("the informer did not sync within 15 s")), 15_000);
  try {
    await informer.ready(stop.signal);
    for (let i = 0; i < 400 && informer.store.get("ns/d")?.metadata.resourceVersion !== "2"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const cached = informer.store.get("ns/d");
    assert.equal(cached?.metadata.resourceVersion, "2", "the watched version is cached");
    assert.equal(leafOf(cached?.spec), "watched");
    assert.ok(Object.isFrozen(cached) && Object.isFrozen(cached?.spec), "frozen as it entered the cache");

    const copy = mutableCopy(cached!);
    assert.equal(leafOf(copy.spec), "watched");
    assert.ok(!Object.isFrozen(copy.spec), "the copy is mutable");

    const result = await createOrPatch<Deep>(client, DEEPS, { name: "d", namespace: "ns" }, (draft) => {
      let at = draft.spec as Record<string, unknown>;
      while ("a" in at) at = at["a"] as Record<string, unknown>;
      at["leaf"] = "changed";
    }, { current: cached! });
    assert.equal(result.operation, "patched");
    assert.equal(server.patches.length, 1);
    const patch = JSON.parse(server.patches[0]!) as { metadata: unknown; spec: unknown };
    assert.deepEqual(patch.metadata, { resourceVersion: "2" });
    assert.equal(leafOf(patch.spec), "changed", "only the changed leaf, 10,000 levels down");
    assert.equal(leafOf(cached?.spec), "watched", "the cached object is untouched");
  } finally {
    clearTimeout(deadline);
    stop.abort();
    await factory.stopped();
  }
});
