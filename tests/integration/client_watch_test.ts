// The raw watch stream from the real apiserver decodes event after event through kubeloop's HTTP
// client and watch decoder. A streaming list (sendInitialEvents) is answered gzip-compressed as a
// series of gzip members, one per flush: a decoder that stops after the first member fails here.
import assert from "node:assert/strict";
import { CONFIG_MAPS, type KubeObject } from "../../lib/resources/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { HttpClient, type HttpRequest, type HttpResponse } from "../../lib/http/mod.ts";
import { type RawWatchEvent, WatchDecoderStream } from "../../lib/watch/mod.ts";
import { createNamespace, kubectlOk, testEnv } from "../_util/testenv.ts";

/** An admin KubeClient over an HttpClient that records the Content-Encoding of every streamed response. */
async function recordingClient(): Promise<{ client: KubeClient; http: HttpClient; encodings: string[] }> {
  const config = await loadConfig({ kubeconfig: testEnv.kubeconfig, env: () => undefined });
  const { cert, key } = await config.credentials.get();
  const http = new HttpClient({ tls: cert && key ? { ...config.tls, cert, key } : config.tls });
  const encodings: string[] = [];
  const transport = {
    async request(request: HttpRequest): Promise<HttpResponse> {
      const res = await http.request(request);
      if (request.stream) encodings.push(res.headers.get("content-encoding") ?? "identity");
      return res;
    },
    close: () => http.close(),
  };
  return { client: new KubeClient(config, { transport }), http, encodings };
}

// kube-apiserver v1.37 gzips streaming-list watches (one gzip member per flush, which broke the web
// DecompressionStream); v1.34 sends them uncompressed. The releases in between were not measured.
const serverMinor = Number(JSON.parse(await kubectlOk(["version", "-o", "json"])).serverVersion.minor);
const expectedEncoding = serverMinor >= 37 ? "gzip" : serverMinor <= 34 ? "identity" : undefined;

Deno.test("a watch, gzip-compressed by a v1.37 server (plain from v1.34), delivers every event in order without a decode error", async () => {
  await using ns = await createNamespace("client-watch");
  const { client, http, encodings } = await recordingClient();
  await using _client = client;
  using _http = { [Symbol.dispose]: () => http.close() };
  await client.create(CONFIG_MAPS, { metadata: { name: "before", namespace: ns.name } });
  const stream = await client.watch(CONFIG_MAPS, {
    namespace: ns.name,
    sendInitialEvents: true,
    resourceVersionMatch: "NotOlderThan",
    allowWatchBookmarks: true,
    timeoutSeconds: 30,
  });
  if (expectedEncoding) {
    assert.deepEqual(encodings, [expectedEncoding], `the v1.${serverMinor} server's watch response encoding`);
  }
  const reader = stream.pipeThrough(new WatchDecoderStream<KubeObject>()).getReader();
  const seen: string[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      await client.create(CONFIG_MAPS, {
        metadata: { name: `cm-${i}`, namespace: ns.name },
        data: { i: String(i) },
      });
    }
    await client.delete(CONFIG_MAPS, "cm-0", { namespace: ns.name });
    while (seen.length < 8) {
      const { value, done } = await reader.read();
      assert.ok(!done, `stream ended after ${seen.join(", ")}`);
      const event: RawWatchEvent<KubeObject> = value;
      if (event.type === "ADDED" || event.type === "DELETED") {
        seen.push(`${event.type} ${event.object.metadata.name}`);
      }
      if (event.type === "BOOKMARK" && event.object.metadata.annotations?.["k8s.io/initial-events-end"]) {
        seen.push("initial-events-end");
      }
    }
  } finally {
    await reader.cancel();
  }
  assert.deepEqual(seen, [
    "ADDED before",
    "initial-events-end",
    "ADDED cm-0",
    "ADDED cm-1",
    "ADDED cm-2",
    "ADDED cm-3",
    "ADDED cm-4",
    "DELETED cm-0",
  ]);
});
