/**
 * Smoke runs of the self-contained `deno bench` files: each runs with the permissions its doc comment gives,
 * at a tiny size (bench/_util/bench_env.ts: 50 objects per input, one iteration per case, no type check:
 * the `deno check` gate covers bench/), and must print a timing row for every case. The two files that need
 * a control plane run in tests/integration/bench_deno_bench_smoke_test.ts.
 */
import assert from "node:assert/strict";
import { assertBenchRows, assertTable, deno, runBench } from "../_util/bench_smoke.ts";

const TINY = { KUBELOOP_BENCH_N: "50", KUBELOOP_BENCH_ITERATIONS: "1" };
const ALLOW_ENV = "--allow-env=KUBELOOP_BENCH_N,KUBELOOP_BENCH_ITERATIONS";

function benchFile(file: string, permissions: string[] = []) {
  return runBench(deno, ["bench", "--no-check", ...permissions, ALLOW_ENV, file], { env: TINY });
}

Deno.test("smoke: bench/chain_check_bench.ts times every chain and signature check", async () => {
  const run = await benchFile("bench/chain_check_bench.ts", ["--allow-read"]);
  assertBenchRows(run, [
    "full chain check, nothing cached",
    "full chain check, anchors parsed once",
    "one ECDSA P-256 signature",
    "one RSA-2048 PKCS#1 v1.5 signature",
  ]);
});

Deno.test("smoke: bench/gunzip_bench.ts times the three decoders and prints its medians table", async () => {
  const run = await benchFile("bench/gunzip_bench.ts");
  assertBenchRows(run, ["ours", "node:zlib", "DecompressionStream"]);
  assert.match(run.stdout, /^group watch, 50 members/m, "the watch input has KUBELOOP_BENCH_N members");
  assertTable(run.stdout, "| input | ours | node:zlib | DecompressionStream |", [
    "| list, gzip level 1",
    "| list, gzip level 6",
  ]);
  // DecompressionStream reads one gzip member only, so the watch row has no figure for it.
  assert.match(run.stdout, /^\| watch, 50 members [^|]*\| [\d.]+ \| [\d.]+ \| – \| [\d.]+ \| – \|$/m);
});

Deno.test("smoke: bench/http_bench.ts times pooled, unpooled and fetch GETs", async () => {
  const run = await benchFile("bench/http_bench.ts", ["--allow-net=127.0.0.1"]);
  assertBenchRows(run, [
    "HttpClient GET, keep-alive",
    "HttpClient GET, new connection each time",
    "fetch GET (reference)",
  ]);
});

Deno.test("smoke: bench/list_decode_bench.ts times every list decoding path", async () => {
  const run = await benchFile("bench/list_decode_bench.ts", ["--allow-net=127.0.0.1"]);
  assertBenchRows(run, [
    "JSON.parse(string) of a 50-item ConfigMapList",
    "KubeClient.list over loopback HTTP",
    "body step alone: ClientResponse.text()",
    "body step item by item: ListBodyDecoder",
    "TextDecoder.decode(contiguous bytes) + JSON.parse",
    "new Response(16 KiB chunk stream).json()",
  ]);
});

Deno.test("smoke: bench/queue_bench.ts times every queue case at the size it was given", async () => {
  const run = await benchFile("bench/queue_bench.ts");
  assertBenchRows(run, [
    "add/get/done of 50 distinct keys",
    "500 adds over 50 keys (heavy duplicates), then drain",
    "4 async workers process 150 adds: 3 rounds of 50 keys, none collapsed",
    "rate-limiting queue: 50 addAfter with shuffled delays, then shutdown",
  ]);
});

Deno.test("smoke: bench/tracing_bench.ts times the span helpers and the reconcile loop, off and on", async () => {
  const run = await benchFile("bench/tracing_bench.ts");
  assertBenchRows(run, [
    "direct async call",
    "inSpan(name, options, fn)",
    "direct sync call",
    "inSpanSync(name, options, fn)",
    "activeSpanContext()",
    "tracing off",
    "tracing on, the API's no-op tracer (no SDK)",
    "tracing on, every span recorded in memory",
  ]);
  assert.match(run.stdout, /^group reconcile loop, 50 keys/m, "the loop has KUBELOOP_BENCH_N keys");
});

Deno.test("smoke: bench/watch_bench.ts times the decoders against JSON.parse per line", async () => {
  const run = await benchFile("bench/watch_bench.ts");
  assertBenchRows(run, [
    "JSON.parse per pre-split line (50 events",
    "WatchEventDecoder.push on 16 KiB chunks",
    "WatchDecoderStream (ReadableStream → pipeThrough → reader)",
  ]);
});

Deno.test("smoke: without --allow-env a bench keeps its own sizes", async () => {
  // The knobs are read only where granted: the documented `deno bench bench/queue_bench.ts` still works.
  const run = await runBench(
    deno,
    ["bench", "--no-check", "--filter=distinct keys", "bench/queue_bench.ts"],
    {
      env: TINY,
    },
  );
  assertBenchRows(run, ["add/get/done of 10k distinct keys"]);
});
