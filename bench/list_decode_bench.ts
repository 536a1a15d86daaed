/**
 * Decoding one 10,000-item ConfigMap list (the body of an unpaged LIST, ~2.4 KB per item as the API
 * server returns it: labels, annotations, ~1 KB of data, managedFields), pre-rendered as bytes.
 *
 * - baseline: `JSON.parse` of the already decoded string (the floor: no bytes, no UTF-8 decoding);
 * - the whole KubeClient path: `KubeClient.list` over a loopback socket from a local server that answers
 *   like kube-apiserver, gzip-compressed and chunked (compressed once up front, so the server side costs
 *   little): request writing, socket reads, the chunked decoder, gunzip, and the item-by-item decoding;
 * - the body step alone: `ClientResponse.text()` over the 16 KiB chunks the socket and chunked decoder
 *   would deliver (collect, concatenate, `TextDecoder.decode`), then `JSON.parse`, with no socket;
 * - the body step as `KubeClient.list` takes it: `ListBodyDecoder` over the same chunks, item by item;
 * - its parts: `TextDecoder.decode` of one contiguous buffer + `JSON.parse` (no stream, no copy);
 * - for scale: the web-standard `new Response(stream).json()`.
 *
 *   deno bench --allow-net=127.0.0.1 bench/list_decode_bench.ts
 *   (KUBELOOP_BENCH_N items, KUBELOOP_BENCH_ITERATIONS per case with --allow-env: see _util/bench_env.ts)
 */
import { CONFIG_MAPS } from "../lib/resources/mod.ts";
import { KubeClient } from "../lib/client/mod.ts";
import { staticCredentials } from "../lib/config/mod.ts";
import { ClientResponse } from "../lib/http/response.ts";
import { ListBodyDecoder } from "../lib/client/list_body_decoder.ts";
import { serverConfigMap } from "./peers/configmaps.ts";
import { benchIterations, benchSize } from "./_util/bench_env.ts";

const ITEMS = benchSize(10_000);
const ITERATIONS = benchIterations({ n: 30, warmup: 5 });
const CHUNK = 16 * 1024;

const items = Array.from({ length: ITEMS }, (_, i) => serverConfigMap(i, "bench-ns"));
const text = JSON.stringify({
  kind: "ConfigMapList",
  apiVersion: "v1",
  metadata: { resourceVersion: String(1_000 + ITEMS) },
  items,
});
const bytes = new TextEncoder().encode(text);
const chunks: Uint8Array[] = [];
for (let at = 0; at < bytes.length; at += CHUNK) chunks.push(bytes.slice(at, at + CHUNK));
const mb = (bytes.length / 1e6).toFixed(1);

const gzipped = new Uint8Array(
  await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer(),
);
/** Answers every request with the list, gzip-compressed, in 16 KiB chunks (chunked transfer coding). */
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= gzipped.length) return controller.close();
      controller.enqueue(gzipped.subarray(at, at += CHUNK));
    },
  });
  return new Response(body, { headers: { "content-type": "application/json", "content-encoding": "gzip" } });
});
const client = new KubeClient({
  server: new URL(`http://127.0.0.1:${server.addr.port}`),
  tls: {},
  credentials: staticCredentials({ token: "bench" }),
  namespace: "bench-ns",
  source: "bench",
  inCluster: false,
});
globalThis.addEventListener("unload", () => {
  void client[Symbol.asyncDispose]();
  void server.shutdown();
});

function chunkStream(): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
}

function check(list: { items: unknown[] }): void {
  if (list.items.length !== ITEMS) throw new Error("lost items");
}

Deno.bench({
  name: `JSON.parse(string) of a ${ITEMS}-item ConfigMapList (${mb} MB)`,
  group: "list decode",
  baseline: true,
  ...ITERATIONS,
  fn() {
    check(JSON.parse(text));
  },
});

Deno.bench({
  name: `KubeClient.list over loopback HTTP: gzip (${
    (gzipped.length / 1e6).toFixed(1)
  } MB) + chunked + JSON.parse`,
  group: "list decode",
  ...ITERATIONS,
  async fn() {
    check(await client.list(CONFIG_MAPS, { namespace: "bench-ns" }));
  },
});

Deno.bench({
  name: "body step alone: ClientResponse.text() over 16 KiB chunks + JSON.parse (no socket)",
  group: "list decode",
  ...ITERATIONS,
  async fn() {
    const res = new ClientResponse(200, "OK", new Headers(), chunkStream());
    check(JSON.parse(await res.text()));
  },
});

Deno.bench({
  name: "body step item by item: ListBodyDecoder over 16 KiB chunks (what KubeClient.list does)",
  group: "list decode",
  ...ITERATIONS,
  fn() {
    const decoder = new ListBodyDecoder();
    for (const chunk of chunks) decoder.push(chunk);
    check(decoder.end() as { items: unknown[] });
  },
});

Deno.bench({
  name: "TextDecoder.decode(contiguous bytes) + JSON.parse",
  group: "list decode",
  ...ITERATIONS,
  fn() {
    check(JSON.parse(new TextDecoder().decode(bytes)));
  },
});

Deno.bench({
  name: "new Response(16 KiB chunk stream).json()",
  group: "list decode",
  ...ITERATIONS,
  async fn() {
    check(await new Response(chunkStream()).json());
  },
});
