// An informer in "auto" mode asks for a streaming list first. A real kube-apiserver with the WatchList
// feature gate off refuses it; the informer must then fill its store from paged lists, for good, and
// keep watching. The same informer against the default server streams and never lists.
import assert from "node:assert/strict";
import { Informer } from "../../lib/cache/mod.ts";
import { CONFIG_MAPS } from "../../lib/resources/mod.ts";
import { KubeClient, type ListOptions, type RawWatchOptions } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import type { LogFields, Logger } from "../../lib/log/logger.ts";
import type { ListWatcher } from "../../lib/watch/mod.ts";
import { adminClient } from "../_util/clients.ts";
import { eventually, kubectlOk, startOwnedTestEnv, testEnv } from "../_util/testenv.ts";

const COUNT = 120;

/** What an "auto" informer asked the server for, and what it logged. */
interface Observed {
  readonly lists: ListOptions[];
  readonly watches: RawWatchOptions[];
  readonly notices: string[];
  readonly names: string[];
}

function recordingLogger(lines: string[]): Logger {
  const logger: Logger = {
    debug: () => {},
    info: (message: string, _fields?: LogFields) => void lines.push(message),
    warn: (message: string) => void lines.push(message),
    error: (message: string) => void lines.push(message),
    child: () => logger,
  };
  return logger;
}

/**
 * Syncs an "auto" informer on ConfigMaps of `namespace`, creates one more ConfigMap through `kubeconfig`
 * and waits until the informer's watch delivers it, then stops.
 */
async function syncAuto(client: KubeClient, kubeconfig: string, namespace: string): Promise<Observed> {
  const lists: ListOptions[] = [];
  const watches: RawWatchOptions[] = [];
  const notices: string[] = [];
  const recording: ListWatcher = {
    list: (ref, options) => (lists.push(options), client.list(ref, options)),
    watch: (ref, options) => (watches.push(options), client.watch(ref, options)),
  };
  const informer = new Informer(recording, CONFIG_MAPS, {
    namespace,
    initialList: "auto",
    pageSize: 50,
    logger: recordingLogger(notices),
  });
  const stop = new AbortController();
  const running = informer.run({ signal: stop.signal });
  try {
    await informer.ready(AbortSignal.timeout(30_000));
    const names = informer.store.list().map((o) => o.metadata.name ?? "").sort();
    await kubectlOk(["create", "configmap", "after-sync", "-n", namespace], { kubeconfig });
    await eventually(() => informer.store.get(`${namespace}/after-sync`), {
      message: "the watch after the initial list did not deliver a new ConfigMap",
    });
    return { lists, watches, notices, names };
  } finally {
    stop.abort();
    await running;
  }
}

async function createConfigMaps(namespace: string, kubeconfig: string): Promise<string[]> {
  await kubectlOk(["create", "namespace", namespace], { kubeconfig });
  const items = Array.from({ length: COUNT }, (_, i) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${String(i).padStart(3, "0")}`, namespace },
  }));
  await kubectlOk(["create", "-f", "-"], {
    kubeconfig,
    stdin: JSON.stringify({ apiVersion: "v1", kind: "List", items }),
  });
  return items.map((i) => i.metadata.name).sort();
}

Deno.test("with the WatchList feature gate off, an auto informer falls back to paged lists and keeps watching", async () => {
  await using plane = await startOwnedTestEnv([
    "-controller-manager=false",
    "-workloads=false",
    "-apiserver-arg=--feature-gates=WatchList=false",
  ]);
  const namespace = "fallback";
  const expected = await createConfigMaps(namespace, plane.kubeconfig);
  await using client = new KubeClient(await loadConfig({ kubeconfig: plane.kubeconfig }));

  const seen = await syncAuto(client, plane.kubeconfig, namespace);
  assert.equal(seen.watches[0]?.sendInitialEvents, true, "the first request was a streaming list");
  assert.ok(seen.lists.length >= 1, "then it listed");
  assert.equal(seen.lists[0]?.resourceVersion, undefined, "a consistent read");
  assert.equal(seen.lists[0]?.limit, 50, "paged, with the configured page size");
  assert.deepEqual(seen.names, expected, "the store holds exactly what the server has");
  const later = seen.watches.slice(1);
  assert.ok(later.length >= 1, "a plain watch followed the list");
  assert.ok(later.every((w) => !w.sendInitialEvents), "no second streaming attempt after the refusal");
  assert.ok(
    seen.notices.some((n) => /Streaming list not usable.*paged lists/.test(n)),
    `the fallback is logged; got: ${seen.notices.join(" | ")}`,
  );
});

Deno.test("with the default server, the same auto informer streams its initial list and never lists", async () => {
  const namespace = `stream-${crypto.randomUUID().slice(0, 8)}`;
  await using client = await adminClient();
  const expected = await createConfigMaps(namespace, testEnv.kubeconfig);
  try {
    const seen = await syncAuto(client, testEnv.kubeconfig, namespace);
    assert.equal(seen.watches[0]?.sendInitialEvents, true);
    assert.equal(seen.lists.length, 0, "the server accepted the streaming list");
    assert.deepEqual(seen.names, expected);
    assert.equal(seen.notices.some((n) => /Streaming list not usable/.test(n)), false);
  } finally {
    await kubectlOk(["delete", "namespace", namespace, "--wait=false"]);
  }
});
