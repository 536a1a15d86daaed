/**
 * An in-memory OpenTelemetry tracer for unit tests: a tracer provider that records every span, and a context
 * manager on AsyncLocalStorage (what Deno's own one does with its async context), registered with the
 * OpenTelemetry API's global the way Deno registers its exporter when OTEL_DENO=true. Then lib/trace is
 * switched on with `enableTracing()`. Install it once per test file; `spans` can be cleared between tests.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  type ContextManager,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  trace,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import { enableTracing } from "../../lib/trace/mod.ts";

/** One recorded span. */
export interface RecordedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  /** The parent's span id; undefined for a root span. */
  readonly parentSpanId: string | undefined;
  readonly attributes: Record<string, AttributeValue>;
  readonly links: readonly Link[];
  /** The API's SpanKind: 0 internal, 1 server, 2 client. */
  readonly kind: number;
  readonly events: { name: string; attributes?: Attributes | undefined }[];
  status: SpanStatus;
  ended: boolean;
}

function hex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
}

class RecordingSpan implements Span {
  readonly #context: SpanContext;
  constructor(readonly record: RecordedSpan) {
    this.#context = { traceId: record.traceId, spanId: record.spanId, traceFlags: 1 };
  }
  spanContext(): SpanContext {
    return this.#context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.record.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const [k, v] of Object.entries(attributes)) if (v !== undefined) this.record.attributes[k] = v;
    return this;
  }
  addEvent(name: string, attributes?: unknown): this {
    this.record.events.push({ name, attributes: attributes as Attributes | undefined });
    return this;
  }
  addLink(link: Link): this {
    (this.record.links as Link[]).push(link);
    return this;
  }
  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.record.status = status;
    return this;
  }
  updateName(): this {
    return this;
  }
  end(): void {
    this.record.ended = true;
  }
  isRecording(): boolean {
    return !this.record.ended;
  }
  recordException(): void {}
}

class RecordingTracer implements Tracer {
  constructor(readonly spans: RecordedSpan[]) {}
  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    const parent = options.root ? undefined : trace.getSpanContext(ctx);
    const record: RecordedSpan = {
      name,
      traceId: parent?.traceId ?? hex(16),
      spanId: hex(8),
      parentSpanId: parent?.spanId,
      attributes: {},
      links: [...(options.links ?? [])],
      kind: options.kind ?? 0,
      events: [],
      status: { code: 0 },
      ended: false,
    };
    const span = new RecordingSpan(record);
    if (options.attributes) span.setAttributes(options.attributes);
    this.spans.push(record);
    return span;
  }
  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...args: unknown[]): ReturnType<F> {
    const fn = args.pop() as F;
    const [options, ctx] = args as [SpanOptions | undefined, Context | undefined];
    const parentContext = ctx ?? context.active();
    const span = this.startSpan(name, options, parentContext);
    const run = (s: Span): unknown => fn(s);
    return context.with(trace.setSpan(parentContext, span), run, undefined, span) as ReturnType<F>;
  }
}

class StorageContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== "function") return target;
    return ((...args: unknown[]) =>
      this.with(ctx, target as (...a: unknown[]) => unknown, undefined, ...args)) as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    return this;
  }
}

/** Registers the recorder with the OpenTelemetry API's global and switches lib/trace on; returns its spans. */
export async function installRecordingTracer(): Promise<RecordedSpan[]> {
  const spans: RecordedSpan[] = [];
  const provider: TracerProvider = { getTracer: () => new RecordingTracer(spans) };
  context.setGlobalContextManager(new StorageContextManager());
  trace.setGlobalTracerProvider(provider);
  if (!await enableTracing()) {
    throw new Error("lib/trace did not switch on after the recorder was registered");
  }
  return spans;
}
