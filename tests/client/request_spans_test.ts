/**
 * With tracing on, each API request is one client span named by verb and resource, a child of the span
 * active at the call, carrying the method, status code and resend count, and never the path, a body or
 * the credentials.
 */
import assert from "node:assert/strict";
import { ApiError, KubeClient } from "../../lib/client/mod.ts";
import { CONFIG_MAPS, DEPLOYMENTS } from "../../lib/resources/mod.ts";
import type { ClusterConfig } from "../../lib/config/types.ts";
import { inSpan } from "../../lib/trace/mod.ts";
import { json, ScriptedTransport, statusAnswer } from "../_util/scripted_transport.ts";
import { installRecordingTracer } from "../_util/recording_tracer.ts";

const spans = await installRecordingTracer();

const TOKEN = "s3cr3t-token-value";
const config: ClusterConfig = {
  server: new URL("https://api.example:6443"),
  tls: {},
  namespace: "team",
  source: "test",
  inCluster: false,
  credentials: { get: () => Promise.resolve({ token: TOKEN }), invalidate: () => {} },
};
const cm = (name: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "team", resourceVersion: "1" },
  data: { password: "object-data-value" },
});

Deno.test("each request is a client span named by verb and resource, a child of the caller's span", async () => {
  spans.length = 0;
  const t = new ScriptedTransport([json(200, cm("a")), json(201, cm("b")), json(200, cm("b")), {
    status: 200,
    body: "{}",
  }]);
  const client = new KubeClient(config, { transport: t, maxRetryWaitMs: 0 });
  await inSpan("reconcile foo", {}, async () => {
    await client.get(CONFIG_MAPS, "a");
    await client.create(CONFIG_MAPS, cm("b"));
    await client.patch(DEPLOYMENTS, "d", { spec: {} }, {
      type: "apply",
      fieldManager: "m",
      subresource: "status",
    });
    await client.delete(CONFIG_MAPS, "b");
  });
  const parent = spans.find((s) => s.name === "reconcile foo")!;
  const requests = spans.filter((s) => s !== parent);
  assert.deepEqual(requests.map((s) => s.name), [
    "get v1/configmaps",
    "create v1/configmaps",
    "apply apps/v1/deployments/status",
    "delete v1/configmaps",
  ]);
  for (const s of requests) {
    assert.equal(s.parentSpanId, parent.spanId);
    assert.equal(s.traceId, parent.traceId);
    assert.equal(s.kind, 2, "SpanKind.CLIENT");
    assert.ok(s.ended);
  }
  assert.deepEqual(requests[0]!.attributes, {
    "http.request.method": "GET",
    "kubeloop.verb": "get",
    "kubeloop.resource": "v1/configmaps",
    "server.address": "api.example",
    "server.port": 6443,
    "http.response.status_code": 200,
  });
  const text = JSON.stringify(spans);
  for (const secret of [TOKEN, "object-data-value", "/namespaces/team"]) {
    assert.ok(!text.includes(secret), secret);
  }
});

Deno.test("a retried request is one span with its resend count; a refused one is failed with the code", async () => {
  spans.length = 0;
  const t = new ScriptedTransport([
    statusAnswer(429, "TooManyRequests", "slow down", { "retry-after": "0" }),
    statusAnswer(429, "TooManyRequests", "slow down", { "retry-after": "0" }),
    json(200, cm("a")),
    statusAnswer(404, "NotFound", 'configmaps "secret-name" not found'),
  ]);
  const client = new KubeClient(config, { transport: t, maxRetryWaitMs: 0 });
  await client.get(CONFIG_MAPS, "a");
  await assert.rejects(client.get(CONFIG_MAPS, "secret-name"), ApiError);
  const [retried, refused] = spans;
  assert.equal(spans.length, 2);
  assert.equal(retried?.attributes["http.request.resend_count"], 2);
  assert.equal(retried?.attributes["http.response.status_code"], 200);
  assert.equal(refused?.attributes["http.response.status_code"], 404);
  assert.equal(refused?.attributes["error.type"], "ApiError");
  assert.equal(refused?.status.code, 2);
  assert.doesNotMatch(JSON.stringify(refused), /secret-name/);
});
