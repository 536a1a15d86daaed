import assert from "node:assert/strict";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { serveObservability } from "../../lib/observe/mod.ts";

Deno.test("a check that returns a detail puts it in the 503 body; ok answers 200", async () => {
  let result = { ok: false, detail: 'controller "x": v1/secrets: Forbidden (403): secrets is forbidden' };
  const stop = new AbortController();
  const server = serveObservability({
    metricsAddress: "0",
    healthAddress: "127.0.0.1:0",
    registry: new MetricsRegistry(),
    readyz: () => result,
    signal: stop.signal,
  });
  try {
    const failing = await fetch(`${server.healthUrl}/readyz`);
    assert.equal(failing.status, 503);
    assert.equal(
      await failing.text(),
      'readyz check failed: not ready\ncontroller "x": v1/secrets: Forbidden (403): secrets is forbidden\n',
    );
    result = { ok: true, detail: "" };
    const ok = await fetch(`${server.healthUrl}/readyz`);
    assert.equal(ok.status, 200);
    assert.equal(await ok.text(), "ok\n");
  } finally {
    stop.abort();
    await server.finished;
  }
});
