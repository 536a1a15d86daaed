/**
 * Small GETs per second through HttpClient: keep-alive pool versus a new connection per request,
 * with fetch as a reference. Self-contained: serves itself on 127.0.0.1 with Deno.serve.
 *   deno bench --allow-net=127.0.0.1 bench/http_bench.ts
 *   (KUBELOOP_BENCH_ITERATIONS per case with --allow-env: see _util/bench_env.ts)
 */
import { HttpClient } from "../lib/http/mod.ts";
import { benchIterations } from "./_util/bench_env.ts";

const body = JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Success" });
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response(body));
const url = new URL(`http://127.0.0.1:${server.addr.port}/api/v1/namespaces/default`);

const pooled = new HttpClient();
const unpooled = new HttpClient({ maxIdlePerOrigin: 0 });
const smallGet = { group: "small GET", ...benchIterations() };

Deno.bench("HttpClient GET, keep-alive", { ...smallGet, baseline: true }, async () => {
  const res = await pooled.request({ method: "GET", url });
  await res.bytes();
});

Deno.bench("HttpClient GET, new connection each time", smallGet, async () => {
  const res = await unpooled.request({ method: "GET", url });
  await res.bytes();
});

Deno.bench("fetch GET (reference)", smallGet, async () => {
  const res = await fetch(url);
  await res.arrayBuffer();
});

globalThis.addEventListener("unload", () => {
  pooled.close();
  unpooled.close();
  void server.shutdown();
});
