/**
 * Traces end to end: the reference controller runs as a process with Deno's OpenTelemetry export on
 * (OTEL_DENO=true), pointed at a real OpenTelemetry Collector (tests/otelcol, built from Go modules),
 * and reconciles one Foo on the real API server. The collector receives that Foo's reconcile: a span with the
 * Foo's key and its trigger, linked to the span of the watch event that queued it, and the API requests it
 * made as its children; and the controller's log line of that reconcile names the same reason.
 */
import assert from "node:assert/strict";
import { startController } from "../e2e/controller_process.ts";
import { createNamespace, eventually } from "../_util/testenv.ts";
import { applyFoo, installSampleControllerPrerequisites } from "../_util/sample_controller.ts";
import { type CollectedSpan, startCollector } from "../_util/otel_collector.ts";
import { waitForOk } from "./_process.ts";

const FOOS = "samplecontroller.k8s.io/v1alpha1/foos";

Deno.test("the collector receives one Foo's reconcile: its trigger, the link to the watch event, its requests as children", async () => {
  await installSampleControllerPrerequisites();
  await using ns = await createNamespace("tracing");
  await using collector = await startCollector();
  const controller = await startController([`--namespace=${ns.name}`], {
    env: {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_SERVICE_NAME: "kubeloop-sample-controller",
    },
  });
  try {
    await waitForOk(`${controller.healthUrl}/readyz`, 30_000);
    await applyFoo(ns.name, "traced");
    const key = `${ns.name}/traced`;
    const isReconcile = (s: CollectedSpan) =>
      s.name === "reconcile foo" && s.attributes["kubeloop.reconcile.key"] === key &&
      s.attributes["kubeloop.trigger.resource"] === FOOS;
    // Deno's exporter sends in batches (every few seconds, and at exit).
    const { spans, reconcile } = await eventually(async () => {
      const spans = await collector.spans();
      const reconcile = spans.find((s) => isReconcile(s) && spans.some((c) => c.parentSpanId === s.spanId));
      return reconcile ? { spans, reconcile } : undefined;
    }, {
      timeoutMs: 60_000,
      intervalMs: 500,
      message: () =>
        `no reconcile span of ${key} with children; collector:\n${collector.output()}\ncontroller:\n` +
        controller.logs().slice(-3000),
    });

    assert.equal(reconcile.service, "kubeloop-sample-controller");
    assert.equal(reconcile.parentSpanId, "", "a reconcile starts its own trace");
    assert.equal(reconcile.attributes["kubeloop.controller"], "foo");
    assert.equal(reconcile.attributes["kubeloop.trigger.type"], "add");
    assert.equal(reconcile.attributes["kubeloop.trigger.key"], key);
    assert.equal(typeof reconcile.attributes["kubeloop.trigger.resource_version"], "string");
    assert.ok(Number(reconcile.attributes["kubeloop.trigger.count"]) >= 1);
    assert.equal(typeof reconcile.attributes["kubeloop.reconcile.queue_wait_seconds"], "number");

    // Linked to the span of the watch event that added the Foo to the cache: same key, same resourceVersion.
    const event = spans.find((s) =>
      reconcile.links.some((l) => l.spanId === s.spanId && l.traceId === s.traceId) &&
      s.name === `informer.event ${FOOS}`
    );
    assert.ok(event, `no linked watch event span among ${JSON.stringify(reconcile.links)}`);
    assert.equal(event.attributes["kubeloop.object.key"], key);
    assert.equal(event.attributes["kubeloop.event.type"], "add");
    assert.equal(
      event.attributes["kubeloop.object.resource_version"],
      reconcile.attributes["kubeloop.trigger.resource_version"],
    );

    // Its API requests are its children, in its trace: the Deployment it created at least.
    const children = spans.filter((s) => s.parentSpanId === reconcile.spanId);
    for (const child of children) {
      assert.equal(child.traceId, reconcile.traceId);
      assert.equal(child.kind, 3, `${child.name} is a client span`);
      assert.ok(Number(child.attributes["http.response.status_code"]) > 0, child.name);
    }
    assert.ok(
      children.some((c) =>
        c.name === "create apps/v1/deployments" && c.attributes["http.response.status_code"] === 201
      ),
      `children: ${children.map((c) => c.name).join(", ")}`,
    );

    // The controller's log lines of that reconcile name why it ran, as the span does.
    assert.ok(
      controller.logs().split("\n").some((l) => l.includes("Synced") && l.includes(`add of ${FOOS} ${key}`)),
      controller.logs().slice(-3000),
    );
    assert.doesNotMatch(await collector.raw(), /BEGIN|eyJhbGciOi/, "no key or token in what was exported");
  } finally {
    await controller.stop();
  }
});
