/**
 * With no OpenTelemetry tracer registered (Deno without OTEL_DENO), lib/trace is off: the API package is
 * not loaded, no span context exists, and inSpan only runs its function.
 */
import assert from "node:assert/strict";
import { activeSpanContext, inSpan, inSpanSync, tracingEnabled } from "../../lib/trace/mod.ts";
import "../../lib/mod.ts"; // the whole library loaded: still nothing registers a tracer

Deno.test("tracing is off without a registered tracer: nothing is loaded, spans do nothing", async () => {
  assert.equal(tracingEnabled(), false);
  assert.equal((globalThis as Record<symbol, unknown>)[Symbol.for("opentelemetry.js.api.1")], undefined);
  const seen: boolean[] = [];
  const out = await inSpan("x", { attributes: { a: 1 } }, (span) => {
    seen.push(span.isRecording());
    span.setAttribute("b", 2);
    return Promise.resolve(activeSpanContext());
  });
  assert.equal(out, undefined);
  assert.equal(inSpanSync("y", {}, () => 42), 42);
  await assert.rejects(inSpan("z", {}, () => Promise.reject(new RangeError("passes through"))), RangeError);
  assert.deepEqual(seen, [false]);
});
