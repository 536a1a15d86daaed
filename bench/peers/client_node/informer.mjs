// Cold-sync probe of @kubernetes/client-node for bench/peers/run.sh: makeInformer lists and watches
// ConfigMaps in one namespace; once start() has resolved (list applied, watch opened) and the cache
// holds the expected count, prints "synced <count> <ms since process start>" and exits.
//
//   KUBECONFIG=PATH node informer.mjs <namespace> <expect>
import { performance } from "node:perf_hooks";
import { CoreV1Api, KubeConfig, makeInformer } from "@kubernetes/client-node";

const [namespace = "default", expectArg = "0"] = process.argv.slice(2);
const expect = Number(expectArg);

const kc = new KubeConfig();
kc.loadFromDefault();
const core = kc.makeApiClient(CoreV1Api);
const informer = makeInformer(
  kc,
  `/api/v1/namespaces/${namespace}/configmaps`,
  () => core.listNamespacedConfigMap({ namespace }),
);
function fail(message) {
  process.stderr.write(`client-node-informer: ${message}\n`);
  process.exit(1);
}
informer.on("error", (err) => fail(err?.message ?? String(err)));
await informer.start();
const deadline = Date.now() + 300_000;
while (informer.list(namespace).length < expect) {
  if (Date.now() > deadline) {
    fail(`only ${informer.list(namespace).length} of ${expect} objects`);
  }
  await new Promise((r) => setTimeout(r, 1));
}
// performance.now() counts from the start of the process (timeOrigin).
process.stdout.write(`synced ${informer.list(namespace).length} ${Math.round(performance.now())}\n`);
await informer.stop();
process.exit(0);
