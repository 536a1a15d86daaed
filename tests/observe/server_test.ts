import assert from "node:assert/strict";
import { MetricsRegistry } from "../../lib/observe/metrics.ts";
import { parseListenAddress, serveObservability } from "../../lib/observe/server.ts";

Deno.test("listen addresses parse into hostname and port, and 0 disables", () => {
  assert.deepEqual(parseListenAddress(":8080"), { hostname: "0.0.0.0", port: 8080 });
  assert.deepEqual(parseListenAddress("127.0.0.1:0"), { hostname: "127.0.0.1", port: 0 });
  assert.deepEqual(parseListenAddress("[::1]:9090"), { hostname: "::1", port: 9090 });
  assert.deepEqual(parseListenAddress("localhost:1"), { hostname: "localhost", port: 1 });
  assert.equal(parseListenAddress("0"), undefined);
  for (const bad of ["8080", "host", ":99999", "a:b", ":", "::1:80"]) {
    assert.throws(() => parseListenAddress(bad), TypeError, bad);
  }
});

async function text(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: string; type: string }> {
  const response = await fetch(url, init);
  return {
    status: response.status,
    body: await response.text(),
    type: response.headers.get("content-type") ?? "",
  };
}

Deno.test("the server answers /metrics, /healthz and /readyz, then stops on abort", async () => {
  const registry = new MetricsRegistry();
  registry.counter("demo_total", "Demo.").inc(4);
  let ready = false;
  const controller = new AbortController();
  const server = serveObservability({
    metricsAddress: "127.0.0.1:0",
    healthAddress: "127.0.0.1:0",
    registry,
    readyz: () => ready,
    healthz: () => Promise.resolve(true),
    signal: controller.signal,
  });
  assert.match(server.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  assert.match(server.healthUrl!, /^http:\/\/127\.0\.0\.1:\d+$/);
  const metrics = await text(server.metricsUrl!);
  assert.equal(metrics.status, 200);
  assert.equal(metrics.type, "text/plain; version=0.0.4; charset=utf-8");
  assert.equal(metrics.body, registry.render());
  assert.deepEqual(await text(`${server.healthUrl}/healthz`), {
    status: 200,
    body: "ok\n",
    type: "text/plain; charset=utf-8",
  });
  const notReady = await text(`${server.healthUrl}/readyz`);
  assert.equal(notReady.status, 503);
  assert.match(notReady.body, /not ready/);
  ready = true;
  assert.equal((await text(`${server.healthUrl}/readyz`)).status, 200);
  assert.equal((await text(`${server.healthUrl}/metrics`)).status, 404, "health port does not serve metrics");
  assert.equal((await text(`${server.healthUrl}/nope`)).status, 404);
  assert.equal((await text(`${server.healthUrl}/readyz`, { method: "POST" })).status, 405);
  const head = await text(server.metricsUrl!, { method: "HEAD" });
  assert.deepEqual([head.status, head.body], [200, ""]);
  controller.abort();
  await server.finished;
  await assert.rejects(fetch(server.metricsUrl!));
});

Deno.test("a throwing check answers 503 with its message", async () => {
  const controller = new AbortController();
  const server = serveObservability({
    metricsAddress: "0",
    healthAddress: "127.0.0.1:0",
    registry: new MetricsRegistry(),
    readyz: () => {
      throw new Error("informers not synced");
    },
    signal: controller.signal,
  });
  assert.equal(server.metricsUrl, undefined);
  const response = await text(`${server.healthUrl}/readyz`);
  assert.deepEqual([response.status, response.body], [503, "readyz check failed: informers not synced\n"]);
  controller.abort();
  await server.finished;
});

Deno.test("one address serves every endpoint when metrics and health share it", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = probe.addr.port;
  probe.close();
  const controller = new AbortController();
  await using server = serveObservability({
    metricsAddress: `127.0.0.1:${port}`,
    healthAddress: `127.0.0.1:${port}`,
    registry: new MetricsRegistry(),
    readyz: () => true,
    signal: controller.signal,
  });
  assert.equal(server.healthUrl, `http://127.0.0.1:${port}`);
  assert.equal((await text(`${server.healthUrl}/readyz`)).status, 200);
  assert.equal((await text(`${server.healthUrl}/metrics`)).status, 200);
});

Deno.test("both endpoints disabled or an already aborted signal start nothing", async () => {
  const server = serveObservability({
    metricsAddress: "0",
    healthAddress: "0",
    registry: new MetricsRegistry(),
    readyz: () => true,
    signal: new AbortController().signal,
  });
  assert.deepEqual([server.metricsUrl, server.healthUrl], [undefined, undefined]);
  await server.finished;
  const aborted = serveObservability({
    metricsAddress: "127.0.0.1:0",
    registry: new MetricsRegistry(),
    readyz: () => true,
    signal: AbortSignal.abort(),
  });
  assert.equal(aborted.metricsUrl, undefined);
  await aborted.finished;
});
