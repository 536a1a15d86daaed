/**
 * Heap bytes per cached object: 10,000 ConfigMaps with realistic managedFields (~1.5 KB), parsed from
 * wire JSON and cached through StoreWriter, keeping managedFields, stripping them the kubeloop way
 * (rebuild metadata), and — for comparison only — with `delete`.
 *
 *   deno run --v8-flags=--expose-gc bench/cache_memory.ts [--n=10000]
 */
import { parseArgs } from "node:util";
import { IndexedStore, StoreWriter, stripManagedFields } from "../lib/cache/mod.ts";
import type { KubeObject } from "../lib/resources/object.ts";

const { values: opts } = parseArgs({ args: Deno.args, options: { n: { type: "string", default: "10000" } } });
const N = Number(opts.n);
if (!Number.isInteger(N) || N < 1) throw new RangeError(`--n must be a positive integer, got ${opts.n}`);
const encoder = new TextEncoder();
/** Benchmark output goes straight to stdout (the library's no-console rule is about library code). */
function print(text: string): void {
  Deno.stdout.writeSync(encoder.encode(text + "\n"));
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");

function managedFields(i: number): unknown[] {
  const fields: Record<string, unknown> = {};
  for (let k = 0; k < 8; k++) fields[`f:key-${k}.properties`] = {};
  return [
    {
      manager: "kubectl-client-side-apply",
      operation: "Update",
      apiVersion: "v1",
      time: "2026-01-01T00:00:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:data": fields,
        "f:metadata": {
          "f:annotations": { ".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {} },
          "f:labels": {
            ".": {},
            "f:app.kubernetes.io/name": {},
            "f:app.kubernetes.io/part-of": {},
            "f:tier": {},
          },
        },
      },
    },
    {
      manager: `controller-${i % 7}`,
      operation: "Apply",
      apiVersion: "v1",
      time: "2026-01-02T00:00:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:metadata": { "f:annotations": { "f:kubeloop.dev/owner": {}, "f:kubeloop.dev/checksum": {} } },
      },
    },
    {
      manager: "kube-controller-manager",
      operation: "Update",
      apiVersion: "v1",
      time: "2026-01-03T00:00:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:data": fields, "f:metadata": { "f:ownerReferences": { ".": {}, 'k:{"uid":"x"}': {} } } },
    },
  ];
}

function configMapJson(i: number): string {
  const data: Record<string, string> = {};
  for (let k = 0; k < 8; k++) data[`key-${k}.properties`] = `value-${i}-${k}-` + "x".repeat(48);
  return JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `cm-${i}`,
      namespace: `ns-${i % 20}`,
      uid: `6f1c2a0e-0000-4000-8000-${String(i).padStart(12, "0")}`,
      resourceVersion: String(100_000 + i),
      creationTimestamp: "2026-01-01T00:00:00Z",
      labels: { "app.kubernetes.io/name": "bench", "app.kubernetes.io/part-of": "kubeloop", tier: "demo" },
      annotations: { "kubeloop.dev/owner": "bench", "kubeloop.dev/checksum": "sha256:" + "ab".repeat(32) },
      managedFields: managedFields(i),
    },
    data,
  });
}

function heap(): number {
  gc!();
  gc!();
  return Deno.memoryUsage().heapUsed;
}

const texts = Array.from({ length: N }, (_, i) => configMapJson(i));
const mfBytes = JSON.stringify(JSON.parse(texts[0]!).metadata.managedFields).length;
const objBytes = texts[0]!.length;

function measure(name: string, prepare: (o: KubeObject) => KubeObject): number {
  const before = heap();
  const store = new IndexedStore<KubeObject>();
  const writer = new StoreWriter(store);
  writer.apply({ type: "init" });
  for (const text of texts) writer.apply({ type: "initApply", object: prepare(JSON.parse(text)) });
  writer.apply({ type: "initDone", resourceVersion: "1" });
  const after = heap();
  if (store.size !== N) throw new Error("lost objects");
  const perObject = (after - before) / N;
  print(
    `${name.padEnd(48)} ${(after - before) / 1e6 > 0 ? ((after - before) / 1e6).toFixed(1) : "?"} MB  ${
      perObject.toFixed(0)
    } B/object`,
  );
  return perObject;
}

print(`${N} ConfigMaps, ${objBytes} B of JSON each, of which managedFields ${mfBytes} B`);
const keep = measure("keep managedFields", (o) => o);
const strip = measure("stripManagedFields (rebuild metadata, default)", stripManagedFields);
const del = measure("delete metadata.managedFields (not used)", (o) => {
  delete o.metadata.managedFields;
  return o;
});
print(
  `stripping saves ${(100 * (1 - strip / keep)).toFixed(0)} %; delete would save ${
    (100 * (1 - del / keep)).toFixed(0)
  } %`,
);
