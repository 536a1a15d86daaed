// @ts-nocheck: run by Node with its own node_modules (see bench/watch_stream/run.ts), not part of the Deno
// module graph. One client of the watch-decoding bench: @kubernetes/client-node's Watch reads the whole
// stream the bench server sends; prints "events <count> <ms from request to last event>".
//
//   node watch.mjs KUBECONFIG EXPECT
import { performance } from "node:perf_hooks";
import { KubeConfig, Watch } from "@kubernetes/client-node";

const [kubeconfig, expectArg = "0"] = process.argv.slice(2);
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);
let events = 0;
const t0 = performance.now();
await new Promise((resolve, reject) => {
  new Watch(kc).watch(
    "/api/v1/namespaces/bench/configmaps",
    {},
    (type) => {
      if (type) events++;
    },
    (err) => (err ? reject(err) : resolve()),
  ).catch(reject);
});
const ms = performance.now() - t0;
if (events !== Number(expectArg)) {
  process.stderr.write(`client-node: ${events} of ${expectArg} events\n`);
  process.exit(1);
}
process.stdout.write(`events ${events} ${ms.toFixed(1)}\n`);
