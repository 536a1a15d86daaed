/**
 * kubeloop's spans, through the standard OpenTelemetry API (`npm:@opentelemetry/api`), which Deno's
 * built-in OpenTelemetry support records and exports when `OTEL_DENO=true`.
 *
 * Off costs nothing: Deno registers its tracer with the API's global (`Symbol.for("opentelemetry.js.api.1")`)
 * before any module runs, and only then is the API package loaded (about 5 MB of RSS and 10–40 ms once).
 * Without it every function here returns at its first line: no package, no span objects, no context
 * switches. A program that registers another OpenTelemetry SDK must do so before kubeloop's modules load,
 * or call {@linkcode enableTracing} afterwards.
 * @module
 */
import type * as OtelApi from "npm:@opentelemetry/api@^1.10.0";

/** A span's identity, for links (the API's `SpanContext`). */
export type SpanContext = OtelApi.SpanContext;

/** Attribute values of a span (the API's `AttributeValue`). */
export type AttributeValue = OtelApi.AttributeValue;

/** Attributes of a span, dropped when undefined. */
export type SpanAttributes = Readonly<Record<string, AttributeValue | undefined>>;

/** The part of a span kubeloop's code uses; with tracing off, one shared object that does nothing. */
export interface TraceSpan {
  /** Sets one attribute. */
  setAttribute(key: string, value: AttributeValue): void;
  /** Adds a timestamped event. */
  addEvent(name: string, attributes?: OtelApi.Attributes): void;
  /** Whether anything records this span (false when tracing is off or the span is not sampled). */
  isRecording(): boolean;
}

/** Options of {@linkcode inSpan} and {@linkcode inSpanSync}. */
export interface SpanOptions {
  /**
   * The span's attributes; undefined values are left out.
   * @default {none}
   */
  readonly attributes?: SpanAttributes;
  /**
   * Spans this one follows from without being their child (the watch events that queued a reconcile).
   * @default {none}
   */
  readonly links?: readonly SpanContext[];
  /**
   * A root span: ignore the span active at the call.
   * @default {false}
   */
  readonly root?: boolean;
  /**
   * A client span (a request to another service) rather than an internal one.
   * @default {false}
   */
  readonly client?: boolean;
}

type Api = typeof OtelApi;

const GLOBAL = Symbol.for("opentelemetry.js.api.1");
const NOOP_SPAN: TraceSpan = Object.freeze({
  setAttribute() {},
  addEvent() {},
  isRecording: () => false,
});

let api: Api | undefined;
let tracer: OtelApi.Tracer | undefined;

/** True when something registered an OpenTelemetry tracer with the API's global (Deno with OTEL_DENO). */
function registered(): boolean {
  return (globalThis as Record<symbol, unknown>)[GLOBAL] !== undefined;
}

/**
 * Loads the OpenTelemetry API if a tracer provider is registered with its global and makes kubeloop's
 * spans real; resolves whether tracing is on. Runs once when this module loads; call it again after
 * registering an SDK (or another tracer provider) later.
 */
export async function enableTracing(): Promise<boolean> {
  if (!registered()) return api !== undefined;
  api ??= await import("npm:@opentelemetry/api@^1.10.0");
  tracer = api.trace.getTracer("kubeloop", "0.1.0");
  return true;
}

await enableTracing();

/** Whether kubeloop records spans (the API is loaded). */
export function tracingEnabled(): boolean {
  return api !== undefined;
}

/**
 * Runs `fn` inside a new span that is active for everything `fn` calls, awaited calls included, and ends
 * it when `fn`'s promise settles; a rejection marks the span failed (error type only: messages may carry
 * names of objects) and passes through.
 */
export function inSpan<R>(
  name: string,
  options: SpanOptions,
  fn: (span: TraceSpan) => Promise<R>,
): Promise<R> {
  if (tracer === undefined) return fn(NOOP_SPAN);
  return start(name, options, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** {@linkcode inSpan} for synchronous work: the span ends when `fn` returns or throws. */
export function inSpanSync<R>(name: string, options: SpanOptions, fn: (span: TraceSpan) => R): R {
  if (tracer === undefined) return fn(NOOP_SPAN);
  return start(name, options, (span) => {
    try {
      return fn(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The identity of the span active here, if tracing is on and one is: what a later span links to. */
export function activeSpanContext(): SpanContext | undefined {
  if (api === undefined) return undefined;
  const context = api.trace.getSpanContext(api.context.active());
  return context && api.trace.isSpanContextValid(context) ? context : undefined;
}

function start<R>(name: string, options: SpanOptions, fn: (span: OtelApi.Span) => R): R {
  const a = api!;
  const apiOptions: OtelApi.SpanOptions = {
    ...(options.attributes ? { attributes: defined(options.attributes) } : {}),
    ...(options.links?.length ? { links: options.links.map((context) => ({ context })) } : {}),
    ...(options.root ? { root: true } : {}),
    ...(options.client ? { kind: a.SpanKind.CLIENT } : {}),
  };
  return tracer!.startActiveSpan(name, apiOptions, a.context.active(), fn);
}

function failed(span: OtelApi.Span, error: unknown): void {
  const type = error instanceof Error ? error.name : typeof error;
  span.setAttribute("error.type", type);
  span.setStatus({ code: api!.SpanStatusCode.ERROR, message: type });
}

function defined(attributes: SpanAttributes): OtelApi.Attributes {
  const out: OtelApi.Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}
