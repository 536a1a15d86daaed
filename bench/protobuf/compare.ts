/**
 * Protobuf vs JSON for a core kind, on real server bytes: N ConfigMaps (bench/peers/configmaps.ts)
 * listed from the local kube-apiserver once as JSON and once as `application/vnd.kubernetes.protobuf`.
 *
 * 1. Correctness: the prototype decoder (decoder.ts) must give exactly what JSON.parse gives.
 * 2. Client CPU: TextDecoder + JSON.parse of the JSON body vs the protobuf decode, interleaved.
 * 3. Server CPU: the API server's CPU per LIST (resourceVersion=0, from its watch cache) for each
 *    encoding, with and without gzip, read from /proc/<pid>/stat around each request, interleaved.
 *
 *   deno run --allow-all bench/protobuf/compare.ts [--n=10000] [--rounds=15]
 */
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { loadConfig } from "../../lib/config/mod.ts";
import { startControlPlane } from "../_util/control_plane.ts";
import { cpuMsBetween, cpuTime } from "../_util/proc_stats.ts";
import { median, print, progress } from "../_util/stats.ts";
import { configMap } from "../peers/configmaps.ts";
import { decodeKubernetesProtobuf } from "./decoder.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: { n: { type: "string", default: "10000" }, rounds: { type: "string", default: "15" } },
});
const N = Number(opts.n);
const ROUNDS = Number(opts.rounds);
const NS = "bench-protobuf";
const JSON_TYPE = "application/json";
const PROTOBUF_TYPE = "application/vnd.kubernetes.protobuf";

await using cp = await startControlPlane();
await cp.kubectlOk(["create", "namespace", NS]);
for (let from = 0; from < N; from += 1000) {
  const items = [];
  for (let i = from; i < Math.min(from + 1000, N); i++) items.push(configMap(i, NS));
  await cp.kubectlOk(
    ["create", "-f", "-", "-o", "name"],
    JSON.stringify({ apiVersion: "v1", kind: "List", items }),
  );
}
progress(`created ${N} ConfigMaps`);

const config = await loadConfig({ kubeconfig: cp.kubeconfig, env: () => undefined });
using http = Deno.createHttpClient({
  caCerts: [...(config.tls.caCerts ?? [])],
  ...(config.tls.cert && config.tls.key ? { cert: config.tls.cert, key: config.tls.key } : {}),
});
const url = new URL(`/api/v1/namespaces/${NS}/configmaps?resourceVersion=0`, config.server);

async function get(accept: string, encoding: string): Promise<{ bytes: Uint8Array; apiserverMs: number }> {
  const before = cpuTime(cp.apiserverPid);
  const res = await fetch(url, { client: http, headers: { Accept: accept, "Accept-Encoding": encoding } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  // The server has finished writing once the body is read; give its accounting a tick.
  await new Promise((r) => setTimeout(r, 20));
  const apiserverMs = cpuMsBetween(before, cpuTime(cp.apiserverPid));
  if (!res.ok) throw new Error(`GET ${accept}: ${res.status}`);
  assert.equal(res.headers.get("content-type")?.split(";")[0], accept);
  return { bytes, apiserverMs };
}

const json = (await get(JSON_TYPE, "identity")).bytes;
const protobuf = (await get(PROTOBUF_TYPE, "identity")).bytes;
const fromJson = JSON.parse(new TextDecoder().decode(json));
const fromProtobuf = decodeKubernetesProtobuf(protobuf);
assert.equal(fromJson.items.length, N);
assert.deepEqual(fromProtobuf, fromJson, "the protobuf decoder must give what JSON.parse gives");
progress("decoded objects are identical");

const decodeMs: Record<string, number[]> = { json: [], protobuf: [] };
for (let r = 0; r < ROUNDS + 2; r++) {
  let t = performance.now();
  JSON.parse(new TextDecoder().decode(json));
  const j = performance.now() - t;
  t = performance.now();
  decodeKubernetesProtobuf(protobuf);
  const p = performance.now() - t;
  if (r >= 2) { // two warm-up rounds for the JIT
    decodeMs.json!.push(j);
    decodeMs.protobuf!.push(p);
  }
}

const serverMs: Record<string, number[]> = {};
const combos = [[JSON_TYPE, "identity"], [PROTOBUF_TYPE, "identity"], [JSON_TYPE, "gzip"], [
  PROTOBUF_TYPE,
  "gzip",
]];
const sizes: Record<string, number> = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const [accept, encoding] of combos) {
    const key = `${accept === JSON_TYPE ? "JSON" : "protobuf"}, ${encoding}`;
    const { bytes, apiserverMs } = await get(accept!, encoding!);
    (serverMs[key] ??= []).push(apiserverMs);
    sizes[key] = bytes.length;
  }
}

const date = new Date().toISOString().slice(0, 10);
print();
print(
  `Protobuf vs JSON, LIST of ${N} ConfigMaps (real server bytes), median of ${ROUNDS} interleaved rounds, ${date}`,
);
print();
print("| client decode | body (MB) | median (ms) | vs JSON |");
print("|---|---:|---:|---:|");
const jm = median(decodeMs.json!), pm = median(decodeMs.protobuf!);
print(`| TextDecoder + JSON.parse | ${(json.length / 1e6).toFixed(1)} | ${jm.toFixed(1)} | 1.00x |`);
print(
  `| prototype protobuf decoder | ${(protobuf.length / 1e6).toFixed(1)} | ${pm.toFixed(1)} | ${
    (pm / jm).toFixed(2)
  }x |`,
);
print();
print("| API server, one LIST (RV=0) | response (MB) | apiserver CPU (ms) |");
print("|---|---:|---:|");
for (const key of Object.keys(serverMs)) {
  print(`| ${key} | ${(sizes[key]! / 1e6).toFixed(2)} | ${median(serverMs[key]!).toFixed(0)} |`);
}
