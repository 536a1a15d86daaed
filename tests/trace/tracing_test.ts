/**
 * lib/trace against a recording tracer registered with the OpenTelemetry API's global, as Deno registers
 * its exporter: spans nest across awaits, roots ignore the active span, links and attributes are kept,
 * and a rejection marks the span failed with the error's type only.
 */
import assert from "node:assert/strict";
import { activeSpanContext, inSpan, inSpanSync, tracingEnabled } from "../../lib/trace/mod.ts";
import { installRecordingTracer } from "../_util/recording_tracer.ts";

const spans = await installRecordingTracer();

Deno.test("a span is active for everything its function awaits, and nests", async () => {
  spans.length = 0;
  assert.equal(tracingEnabled(), true);
  let inner: string | undefined;
  await inSpan("outer", { attributes: { keep: "yes", drop: undefined } }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    await inSpan("inner", {}, async () => {
      await Promise.resolve();
      inner = activeSpanContext()?.spanId;
    });
  });
  const [outer, child] = [spans.find((s) => s.name === "outer")!, spans.find((s) => s.name === "inner")!];
  assert.equal(child.parentSpanId, outer.spanId);
  assert.equal(child.traceId, outer.traceId);
  assert.equal(inner, child.spanId);
  assert.deepEqual(outer.attributes, { keep: "yes" });
  assert.ok(outer.ended && child.ended);
  assert.equal(activeSpanContext(), undefined, "nothing is active afterwards");
});

Deno.test("a root span ignores the active span; links name other spans", () => {
  spans.length = 0;
  const first = inSpanSync("event", {}, () => activeSpanContext()!);
  inSpanSync("outer", {}, () => inSpanSync("reconcile", { root: true, links: [first] }, () => {}));
  const reconcile = spans.find((s) => s.name === "reconcile")!;
  assert.equal(reconcile.parentSpanId, undefined);
  assert.notEqual(reconcile.traceId, first.traceId);
  assert.deepEqual(reconcile.links.map((l) => l.context.spanId), [first.spanId]);
});

Deno.test("a rejection marks the span failed with the error's type, never its message, and passes through", async () => {
  spans.length = 0;
  await assert.rejects(
    inSpan("failing", {}, () => Promise.reject(new RangeError("secret-name is out of range"))),
    /secret-name/,
  );
  assert.throws(() =>
    inSpanSync("throwing", {}, () => {
      throw new TypeError("boom");
    }), TypeError);
  const [failing, throwing] = spans;
  assert.equal(failing?.status.code, 2);
  assert.equal(failing?.attributes["error.type"], "RangeError");
  assert.doesNotMatch(JSON.stringify(failing), /secret-name/);
  assert.equal(throwing?.attributes["error.type"], "TypeError");
  assert.ok(failing?.ended && throwing?.ended);
});
