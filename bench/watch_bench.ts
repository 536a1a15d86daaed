/**
 * Decoder throughput: 5,000 ~1 KB ConfigMap watch events in 16 KiB chunks through
 * WatchDecoderStream / WatchEventDecoder, against the floor of raw `JSON.parse` on pre-split lines.
 * The baseline does no UTF-8 decoding and no newline search; those two alone cost ~10 % of it (one
 * streaming `TextDecoder` call per chunk ~0.5 ms, `String.prototype.indexOf` per line ~0.2 ms for the
 * 5.7 MB), and the stream adds one reader round trip per event.
 *
 *   deno bench bench/watch_bench.ts
 *   (KUBELOOP_BENCH_N events, KUBELOOP_BENCH_ITERATIONS per case with --allow-env: see _util/bench_env.ts)
 */
import { WatchDecoderStream, WatchEventDecoder } from "../lib/watch/mod.ts";
import { benchIterations, benchSize } from "./_util/bench_env.ts";

const EVENTS = benchSize(5_000);
const ITERATIONS = benchIterations();
const CHUNK = 16 * 1024;

function configMapEvent(i: number): string {
  const data: Record<string, string> = {};
  for (let k = 0; k < 8; k++) data[`key-${k}.properties`] = `value-${i}-${k}-` + "x".repeat(48);
  return JSON.stringify({
    type: i % 10 === 0 ? "ADDED" : "MODIFIED",
    object: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: `cm-${i}`,
        namespace: "bench-ns",
        uid: `6f1c2a0e-0000-4000-8000-${String(i).padStart(12, "0")}`,
        resourceVersion: String(100_000 + i),
        creationTimestamp: "2026-01-01T00:00:00Z",
        labels: { "app.kubernetes.io/name": "bench", "app.kubernetes.io/part-of": "kubeloop", tier: "demo" },
        annotations: {
          "kubeloop.dev/owner": "watch-bench",
          "kubeloop.dev/checksum": "sha256:" + "ab".repeat(32),
        },
      },
      data,
    },
  });
}

const lines = Array.from({ length: EVENTS }, (_, i) => configMapEvent(i));
const bytes = new TextEncoder().encode(lines.join("\n") + "\n");
const chunks: Uint8Array[] = [];
for (let at = 0; at < bytes.length; at += CHUNK) chunks.push(bytes.slice(at, at + CHUNK));
const avgLine = Math.round(bytes.length / EVENTS);

Deno.bench({
  name: `JSON.parse per pre-split line (${EVENTS} events, ~${avgLine} B each)`,
  group: "decode",
  ...ITERATIONS,
  baseline: true,
  fn() {
    let n = 0;
    for (const line of lines) if (JSON.parse(line).type) n++;
    if (n !== EVENTS) throw new Error("lost events");
  },
});

Deno.bench({
  name: "WatchEventDecoder.push on 16 KiB chunks",
  group: "decode",
  ...ITERATIONS,
  fn() {
    const decoder = new WatchEventDecoder();
    let n = 0;
    const emit = () => void n++;
    for (const chunk of chunks) decoder.push(chunk, emit);
    decoder.end(emit);
    if (n !== EVENTS) throw new Error("lost events");
  },
});

Deno.bench({
  name: "WatchDecoderStream (ReadableStream → pipeThrough → reader)",
  group: "decode",
  ...ITERATIONS,
  async fn() {
    let i = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i < chunks.length) controller.enqueue(chunks[i++]!);
        else controller.close();
      },
    });
    let n = 0;
    for await (const _event of source.pipeThrough(new WatchDecoderStream())) n++;
    if (n !== EVENTS) throw new Error("lost events");
  },
});
