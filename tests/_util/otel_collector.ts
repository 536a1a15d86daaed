/**
 * A real OpenTelemetry Collector for the tracing tests (tests/otelcol: the Collector's service and OTLP
 * receiver, built from Go modules like the control plane), listening for OTLP over HTTP on a free loopback
 * port and writing what it receives, as OTLP JSON lines, to a file this helper reads back.
 *
 * Where the binary comes from: $KUBELOOP_OTELCOL (tests/run.sh builds it before the files that need it),
 * else `bash tests/otelcol/build.sh` (builds it on first use, showing progress on stderr).
 */
import { join } from "node:path";
import { freePort } from "./start_task.ts";

/** One span as the collector received it. */
export interface CollectedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  /** "" for a root span. */
  readonly parentSpanId: string;
  /** 1 internal, 2 server, 3 client (OTLP's SpanKind). */
  readonly kind: number;
  readonly attributes: Record<string, string | number | boolean>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  readonly status: { readonly code?: number };
  /** The resource's service.name. */
  readonly service: string;
}

/** One log record as the collector received it. */
export interface CollectedLog {
  readonly body: string;
  /** "" when it was written outside any span. */
  readonly traceId: string;
  readonly spanId: string;
}

/** A running collector. */
export interface Collector extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  /** Every span received so far. */
  spans(): Promise<CollectedSpan[]>;
  /** Every log record received so far. */
  logs(): Promise<CollectedLog[]>;
  /** The received OTLP JSON, as written. */
  raw(): Promise<string>;
  /** The collector's own output. */
  output(): string;
}

let located: Promise<string> | undefined;

async function build(): Promise<string> {
  const script = new URL("../otelcol/build.sh", import.meta.url).pathname;
  const out = await new Deno.Command("bash", { args: [script], stdout: "piped", stderr: "inherit" }).output();
  const path = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
  if (!out.success || path === "") {
    throw new Error(`Cannot build the collector: bash ${script} exited ${out.code}`);
  }
  return path;
}

/** The path of the collector binary, building it once per process when nothing names one. */
export function collectorBinary(): Promise<string> {
  const fromEnv = Deno.env.get("KUBELOOP_OTELCOL");
  if (fromEnv) return Promise.resolve(fromEnv);
  located ??= build();
  return located;
}

type AnyValue = { stringValue?: string; intValue?: string; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

/** One line of the collector's file: OTLP JSON of one batch (the fields the tests read). */
interface OtlpLine {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        kind?: number;
        attributes?: KeyValue[];
        links?: { traceId: string; spanId: string }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
  resourceLogs?: {
    scopeLogs?: { logRecords?: { body?: AnyValue; traceId?: string; spanId?: string }[] }[];
  }[];
}

function attributes(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? value.doubleValue ?? value.boolValue ??
      (value.intValue === undefined ? "" : Number(value.intValue));
  }
  return out;
}

/** Starts a collector; dispose of it to stop it. */
export async function startCollector(): Promise<Collector> {
  const binary = await collectorBinary();
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-otelcol-" });
  const file = join(dir, "received.jsonl");
  const port = freePort();
  const config = {
    receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${port}` } } } },
    exporters: { jsonl: { path: file } },
    service: {
      telemetry: { metrics: { level: "none" }, logs: { level: "warn" } },
      pipelines: {
        traces: { receivers: ["otlp"], exporters: ["jsonl"] },
        logs: { receivers: ["otlp"], exporters: ["jsonl"] },
        metrics: { receivers: ["otlp"], exporters: ["jsonl"] },
      },
    },
  };
  // YAML is a superset of JSON: the config file is plain JSON.
  await Deno.writeTextFile(join(dir, "config.yaml"), JSON.stringify(config));
  const child = new Deno.Command(binary, {
    args: [`--config=${join(dir, "config.yaml")}`],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let output = "";
  const decoder = new TextDecoder();
  const drain = (stream: ReadableStream<Uint8Array>) =>
    stream.pipeTo(new WritableStream({ write: (chunk) => void (output += decoder.decode(chunk)) }));
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        await child.status;
        throw new Error(`The collector did not listen on 127.0.0.1:${port} within 30 s:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const lines = async () => {
    const text = await Deno.readTextFile(file).catch(() => "");
    return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as OtlpLine);
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async spans() {
      const out: CollectedSpan[] = [];
      for (const line of await lines()) {
        for (const rs of line.resourceSpans ?? []) {
          const service = String(attributes(rs.resource?.attributes)["service.name"]);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              out.push({
                name: s.name,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? "",
                kind: s.kind ?? 0,
                attributes: attributes(s.attributes),
                links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
                status: s.status ?? {},
                service,
              });
            }
          }
        }
      }
      return out;
    },
    async logs() {
      const out: CollectedLog[] = [];
      for (const line of await lines()) {
        for (const rl of line.resourceLogs ?? []) {
          for (const sl of rl.scopeLogs ?? []) {
            for (const r of sl.logRecords ?? []) {
              out.push({ body: r.body?.stringValue ?? "", traceId: r.traceId ?? "", spanId: r.spanId ?? "" });
            }
          }
        }
      }
      return out;
    },
    raw: () => Deno.readTextFile(file).catch(() => ""),
    output: () => output,
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await drained;
      await Deno.remove(dir, { recursive: true });
    },
  };
}
