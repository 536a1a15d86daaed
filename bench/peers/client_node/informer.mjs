// @ts-nocheck: run by Node with its own node_modules (see run.sh), not part of the Deno module graph.
// Cold-sync probe of @kubernetes/client-node for bench/peers/cold_sync.ts: makeInformer lists and watches
// ConfigMaps (CoreV1Api) or Foos (CustomObjectsApi, third argument "foos") in one namespace; once start() has resolved (list applied, watch opened) and the cache
// holds the expected count, prints "synced <count> <ms since process start>" and exits. The start is
// $KUBELOOP_BENCH_T0_MS (epoch ms, set by the harness just before it starts the process), else the
// runtime's time origin.
//
//   KUBECONFIG=PATH node informer.mjs <namespace> <expect> [configmaps|foos]
import { performance } from "node:perf_hooks";
import { CoreV1Api, CustomObjectsApi, KubeConfig, makeInformer } from "@kubernetes/client-node";

const [namespace = "default", expectArg = "0", resource = "configmaps"] = process.argv.slice(2);
const expect = Number(expectArg);
const t0 = Number(process.env.KUBELOOP_BENCH_T0_MS ?? "");

const kc = new KubeConfig();
kc.loadFromDefault();
const foos = { group: "samplecontroller.k8s.io", version: "v1alpha1", plural: "foos" };
const informer = resource === "foos"
  ? makeInformer(
    kc,
    `/apis/${foos.group}/${foos.version}/namespaces/${namespace}/${foos.plural}`,
    () => kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({ ...foos, namespace }),
  )
  : makeInformer(
    kc,
    `/api/v1/namespaces/${namespace}/configmaps`,
    () => kc.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace }),
  );
function fail(message) {
  process.stderr.write(`client-node-informer: ${message}\n`);
  process.exit(1);
}
let stopping = false;
informer.on("error", (err) => stopping || fail(err?.message ?? String(err)));
await informer.start();
const deadline = Date.now() + 300_000;
while (informer.list(namespace).length < expect) {
  if (Date.now() > deadline) {
    fail(`only ${informer.list(namespace).length} of ${expect} objects`);
  }
  await new Promise((r) => setTimeout(r, 1));
}
const elapsed = t0 > 0 ? Date.now() - t0 : Math.round(performance.now());
process.stdout.write(`synced ${informer.list(namespace).length} ${elapsed}\n`);
stopping = true;
await informer.stop();
process.exit(0);
