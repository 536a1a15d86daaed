/**
 * Gzip decoding of response bodies: our decoder (`gunzipStream`) against the node:zlib stream it
 * replaced (a copy of that code is below) and the web `DecompressionStream` (one member only: it
 * fails on the second).
 *
 * - a list: one 10,000-item ConfigMap list as kube-apiserver returns it, gzipped at level 1 and 6,
 *   arriving in 16 KiB chunks (the apiserver uses level 1 of Go's compress/flate: another matcher,
 *   output of a similar kind);
 * - a watch: 20,000 events of about 1 KB, each its own gzip member in its own chunk, as the apiserver
 *   flushes them.
 *
 * Each input is gzipped once up front. After the run, a table gives the median time per iteration
 * and the ratio to node:zlib and DecompressionStream (below 1: ours is faster).
 *
 *   deno bench bench/gunzip_bench.ts
 *   KUBELOOP_BENCH_N=100 KUBELOOP_BENCH_ITERATIONS=1 deno bench --allow-env bench/gunzip_bench.ts  # items
 *       and events, iterations per case (the test suite's smoke run)
 */
import { createGunzip, gzipSync } from "node:zlib";
import { gunzipStream } from "../lib/http/gunzip.ts";
import { median, print } from "./_util/stats.ts";
import { benchIterations, benchSize } from "./_util/bench_env.ts";
import { configMap, serverConfigMap } from "./peers/configmaps.ts";

const ITEMS = benchSize(10_000);
const EVENTS = benchSize(20_000);
const CHUNK = 16 * 1024;
// Measured iterations per input; the table takes the median of the last ones of these.
const ITERATIONS = {
  level1: benchIterations({ n: 30, warmup: 5 }),
  level6: benchIterations({ n: 30, warmup: 5 }),
  watch: benchIterations({ n: 15, warmup: 5 }),
};
const URL_TEXT = "https://bench/api/v1/configmaps";
const encoder = new TextEncoder();

const list = encoder.encode(JSON.stringify({
  kind: "ConfigMapList",
  apiVersion: "v1",
  metadata: { resourceVersion: String(1_000 + ITEMS) },
  items: Array.from({ length: ITEMS }, (_, i) => serverConfigMap(i, "bench-ns")),
}));

/** gzip at `level`, as a plain Uint8Array like the ones a socket gives (node:zlib returns a Buffer). */
function gzip(bytes: Uint8Array, level: number): Uint8Array {
  return new Uint8Array(gzipSync(bytes, { level }));
}

/** `bytes` in CHUNK-sized pieces. */
function split(bytes: Uint8Array): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK) pieces.push(bytes.slice(at, at + CHUNK));
  return pieces;
}

/** A watch event of about 1 KB: a ConfigMap with two of its eight data keys. */
function watchEvent(i: number): Uint8Array {
  const object = configMap(i, "bench-ns");
  const data = object.data as Record<string, string>;
  object.data = {
    "setting-0.properties": data["setting-0.properties"],
    "setting-1.properties": data["setting-1.properties"],
  };
  (object.metadata as Record<string, unknown>).resourceVersion = String(2_000_000 + i);
  return encoder.encode(JSON.stringify({ type: "MODIFIED", object }) + "\n");
}

const inputs = {
  level1: { chunks: split(gzip(list, 1)), size: list.length },
  level6: { chunks: split(gzip(list, 6)), size: list.length },
  watch: { chunks: [] as Uint8Array[], size: 0 },
};
for (let i = 0; i < EVENTS; i++) {
  const event = watchEvent(i);
  inputs.watch.chunks.push(gzip(event, 1));
  inputs.watch.size += event.length;
}
const compressed = (chunks: Uint8Array[]) => chunks.reduce((n, c) => n + c.length, 0);

function body(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  }, { highWaterMark: 0 });
}

/** Reads `stream` to the end and checks its length. */
async function drain(stream: ReadableStream<Uint8Array>, size: number): Promise<void> {
  let n = 0;
  for await (const chunk of stream) n += chunk.length;
  if (n !== size) throw new Error(`decoded ${n} bytes, expected ${size}`);
}

/** The node:zlib implementation gunzipStream had before (errors simplified). */
function zlibGunzipStream(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const zlib = createGunzip();
  const output: Uint8Array[] = [];
  let ended = false;
  let failure: Error | undefined;
  let inputDone = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  zlib.on("data", (data: Uint8Array) => {
    output.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    notify();
  });
  zlib.on("end", () => {
    ended = true;
    notify();
  });
  zlib.on("error", (err: Error) => {
    failure = err;
    notify();
  });
  const settled = () => new Promise<void>((resolve) => (wake = resolve));
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const next = output.shift();
        if (next) {
          controller.enqueue(next);
          return;
        }
        if (failure) throw failure;
        if (ended) {
          controller.close();
          return;
        }
        if (inputDone) {
          await settled();
          continue;
        }
        const { value, done } = await reader.read();
        if (done) {
          inputDone = true;
          const waiting = settled();
          zlib.end();
          await waiting;
          continue;
        }
        await new Promise<void>((resolve) => zlib.write(value, () => resolve()));
      }
    },
    async cancel(reason) {
      zlib.destroy();
      await reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

type Decoder = "ours" | "node:zlib" | "DecompressionStream";
const decoders: Record<Decoder, (body: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>> = {
  "ours": (b) => gunzipStream(b, URL_TEXT),
  "node:zlib": zlibGunzipStream,
  "DecompressionStream": (b) =>
    (b as ReadableStream<Uint8Array<ArrayBuffer>>).pipeThrough(new DecompressionStream("gzip")),
};
const groups = {
  level1: `list, gzip level 1 (${(list.length / 1e6).toFixed(1)} MB → ${
    (compressed(inputs.level1.chunks) / 1e6).toFixed(2)
  } MB)`,
  level6: `list, gzip level 6 (→ ${(compressed(inputs.level6.chunks) / 1e6).toFixed(2)} MB)`,
  watch: `watch, ${EVENTS} members (${(inputs.watch.size / 1e6).toFixed(1)} MB → ${
    (compressed(inputs.watch.chunks) / 1e6).toFixed(2)
  } MB)`,
};
const times = new Map<string, number[]>();

for (const group of ["level1", "level6", "watch"] as const) {
  for (const decoder of ["ours", "node:zlib", "DecompressionStream"] as const) {
    if (group === "watch" && decoder === "DecompressionStream") continue;
    const key = `${group}/${decoder}`;
    times.set(key, []);
    const { chunks, size } = inputs[group];
    Deno.bench({
      name: decoder,
      group: groups[group],
      baseline: decoder === "ours",
      ...ITERATIONS[group],
      async fn(b) {
        b.start();
        const started = performance.now();
        await drain(decoders[decoder](body(chunks)), size);
        times.get(key)!.push(performance.now() - started);
        b.end();
      },
    });
  }
}

globalThis.addEventListener("unload", () => {
  print("\nmedians (ms per iteration, warm-up left out) and ratios of ours to the others:");
  print("| input | ours | node:zlib | DecompressionStream | ours ÷ node:zlib | ours ÷ DecompressionStream |");
  print("| --- | ---: | ---: | ---: | ---: | ---: |");
  for (const group of ["level1", "level6", "watch"] as const) {
    // Deno runs a few more iterations than `n`: the measured ones are the last.
    const ms = (decoder: Decoder) =>
      median(times.get(`${group}/${decoder}`)?.slice(-ITERATIONS[group].n) ?? []);
    const ours = ms("ours"), zlib = ms("node:zlib"), web = ms("DecompressionStream");
    const cell = (v: number) => Number.isNaN(v) ? "–" : v.toFixed(1);
    const ratio = (v: number) => Number.isNaN(v) ? "–" : (ours / v).toFixed(2);
    print(
      `| ${groups[group]} | ${cell(ours)} | ${cell(zlib)} | ${cell(web)} | ${ratio(zlib)} | ${ratio(web)} |`,
    );
  }
});
