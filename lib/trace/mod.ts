/**
 * Tracing: kubeloop's spans through the OpenTelemetry API, recorded and exported by Deno when
 * `OTEL_DENO=true` (see docs/observability.md); with it off, the API is never loaded and every call
 * returns at once.
 * @module
 */
export {
  activeSpanContext,
  type AttributeValue,
  enableTracing,
  inSpan,
  inSpanSync,
  type SpanAttributes,
  type SpanContext,
  type SpanOptions,
  type TraceSpan,
  tracingEnabled,
} from "./tracing.ts";
