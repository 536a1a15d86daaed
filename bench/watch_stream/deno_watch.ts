/**
 * One client of bench/watch_stream/run.ts: reads the whole watch stream the bench server sends and
 * prints "events <count> <ms from request to last event>".
 *
 * - `kubeloop`: the whole stack a controller uses: loadConfig (kubeconfig with a CA) → KubeClient.watch
 *   (our HTTP/1.1 client over node:tls, chunked decoding) → WatchDecoderStream;
 * - `kubeloop-reader`: the same bytes through the watcher's own path (WatchStreamReader, no stream hop);
 * - `fetch`: Deno's native fetch with `Deno.createHttpClient({ caCerts })`, a streaming TextDecoder per
 *   chunk, lines split by hand, one JSON.parse per line.
 *
 *   deno run --allow-net=127.0.0.1 --allow-read --allow-env bench/watch_stream/deno_watch.ts MODE KUBECONFIG EXPECT
 */
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import { KubeClient } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { WatchDecoderStream, WatchEventDecoder } from "../../lib/watch/mod.ts";
import { WatchStreamReader } from "../../lib/watch/watch_stream_reader.ts";
import { systemClock } from "../../lib/time/clock.ts";

const [mode = "kubeloop", kubeconfig = "", expectArg = "0"] = Deno.args;
const expect = Number(expectArg);
const config = await loadConfig({ kubeconfig, env: () => undefined });
let events = 0;
let t0 = 0;

if (mode === "fetch") {
  const ca = config.tls.caCerts ?? [];
  using http = Deno.createHttpClient({ caCerts: [...ca] });
  t0 = performance.now();
  const res = await fetch(new URL("/api/v1/namespaces/bench/configmaps?watch=1", config.server), {
    client: http,
    headers: { Authorization: "Bearer bench-token", Accept: "application/json" },
  });
  // The strongest plain-fetch reader we found: one streaming TextDecoder call per chunk (a
  // TextDecoderStream adds a stream hop per chunk), lines cut with indexOf.
  const text = new TextDecoder();
  const reader = res.body!.getReader();
  let carry = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const chunk = carry + text.decode(value, { stream: true });
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf("\n", start)) !== -1) {
      if (JSON.parse(chunk.slice(start, nl)).type) events++;
      start = nl + 1;
    }
    carry = chunk.slice(start);
  }
} else {
  await using client = new KubeClient(config);
  t0 = performance.now();
  const body = await client.watch(CONFIG_MAPS, { namespace: "bench" });
  if (mode === "kubeloop") {
    for await (const event of body.pipeThrough(new WatchDecoderStream())) if (event.type) events++;
  } else if (mode === "kubeloop-reader") {
    const reader = new WatchStreamReader(body, new WatchEventDecoder(), {
      clock: systemClock,
      idleMs: 60_000,
    });
    for (;;) {
      const input = await reader.next();
      if (input.kind !== "event") break;
      events++;
    }
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
}
const ms = performance.now() - t0;
if (events !== expect) throw new Error(`${mode}: ${events} of ${expect} events`);
Deno.stdout.writeSync(new TextEncoder().encode(`events ${events} ${ms.toFixed(1)}\n`));
