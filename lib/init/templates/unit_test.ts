import type { Project } from "../project.ts";
import { docComment } from "./doc_comment.ts";
import { KUBELOOP, TESTING } from "./specifiers.ts";

/** tests/<kind>_controller_test.ts: the controller on FakeApi, an in-memory API server. */
export function unitTestTs(p: Project): string {
  const K = p.kind;
  const v = p.variable;
  const R = p.refName;
  // Where the objects of the tests live: the kind's own namespace, or none for a cluster-scoped kind
  // (its ConfigMaps then go to the controller's namespace).
  const crNs = p.namespaced ? `, "apps"` : "";
  const cmNs = p.namespaced ? `"apps"` : `"ops"`;
  const crWhere = p.namespaced ? `, { namespace: "apps" }` : "";
  const moduleDoc = docComment(
    `Unit tests of the ${K} controller: the whole controller (informers, queue, reconcile) runs ` +
      `against FakeApi, an in-memory Kubernetes API, with cached objects frozen so a stray mutation ` +
      `fails loudly. No cluster and no permissions needed: \`deno test ` +
      `tests/${p.stem}_controller_test.ts\`.`,
  );
  return `${moduleDoc}
import assert from "node:assert/strict";
import {
  ApiError,
  CONFIG_MAPS,
  Controller,
  isConditionTrue,
  SharedInformerFactory,
} from ${KUBELOOP};
import { FakeApi } from ${TESTING};
import { FINALIZER, ${v}Controller } from "../${p.files.controller}";
import { type ${K}, ${R} } from "../${p.files.types}";

const NOW = new Date("2030-01-01T00:00:00Z");

/** The controller running on \`api\`; dispose it to stop it. */
function start(api: FakeApi): AsyncDisposable {
  const informers = new SharedInformerFactory(api, { freezeObjects: true });
  const options = ${v}Controller({ informers, client: api, ${
    p.namespaced ? "" : `namespace: "ops", `
  }now: () => NOW });
  const controller = new Controller(informers, options);
  const stop = new AbortController();
  informers.start(stop.signal);
  const running = controller.run({ signal: stop.signal });
  return {
    async [Symbol.asyncDispose]() {
      stop.abort();
      await running;
      await informers.stopped();
    },
  };
}

/** Waits until \`check\` holds: the controller works asynchronously. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), \`timed out waiting for \${what}\`);
}

function ${v}(name: string, message: string): ${K} {
  return { metadata: { name${p.namespaced ? `, namespace: "apps"` : ""} }, spec: { message } };
}

const get${K} = (api: FakeApi) => api.object(${R}, "hello"${crNs});
const getConfigMap = (api: FakeApi) => api.object(CONFIG_MAPS, "hello", ${cmNs});

Deno.test("a new ${K} gets its ConfigMap and our finalizer, and turns Ready", async () => {
  const api = new FakeApi();
  const [created] = api.seed(${R}, ${v}("hello", "Hi"));
  await using _controller = start(api);
  await until(() => isConditionTrue(get${K}(api)?.status?.conditions, "Ready"), "Ready=True");
  const configMap = getConfigMap(api);
  assert.deepEqual(configMap?.data, { message: "Hi" });
  assert.equal(configMap?.metadata.ownerReferences?.[0]?.uid, created?.metadata.uid);
  assert.equal(configMap?.metadata.ownerReferences?.[0]?.controller, true);
  assert.deepEqual(get${K}(api)?.metadata.finalizers, [FINALIZER]);
  assert.equal(get${K}(api)?.status?.observedGeneration, 1);
});

Deno.test("a new message reaches the ConfigMap, and a hand edit of the ConfigMap is undone", async () => {
  const api = new FakeApi();
  api.seed(${R}, ${v}("hello", "Hi"));
  await using _controller = start(api);
  const message = () => getConfigMap(api)?.data?.["message"];
  await until(() => message() === "Hi", "the first ConfigMap");
  await api.patch(${R}, "hello", { spec: { message: "Bye" } }, { type: "merge"${
    p.namespaced ? `, namespace: "apps"` : ""
  } });
  await until(() => message() === "Bye", "the new message");
  await until(() => get${K}(api)?.status?.observedGeneration === 2, "the status of generation 2");
  await api.patch(CONFIG_MAPS, "hello", { data: { message: "edited" } }, {
    type: "merge",
    namespace: ${cmNs},
  });
  await until(() => message() === "Bye", "the hand edit to be undone");
});

Deno.test("deleting a ${K} removes our finalizer, and its ConfigMap goes with it", async () => {
  const api = new FakeApi();
  api.seed(${R}, ${v}("hello", "Hi"));
  await using _controller = start(api);
  await until(() => get${K}(api)?.metadata.finalizers?.includes(FINALIZER) === true, "our finalizer");
  await api.delete(${R}, "hello"${crWhere});
  await until(() => get${K}(api) === undefined, "the ${K} to go");
  await until(() => getConfigMap(api) === undefined, "its ConfigMap to be garbage-collected");
});

Deno.test("a failed write is retried until it succeeds", async () => {
  const api = new FakeApi();
  const error = new ApiError({ code: 500, reason: "InternalError", message: "injected" });
  api.fail({ verb: "patch", resource: "configmaps", times: 3, error });
  api.seed(${R}, ${v}("hello", "Hi"));
  await using _controller = start(api);
  await until(() => isConditionTrue(get${K}(api)?.status?.conditions, "Ready"), "Ready=True");
  const writes = api.requests.filter((r) => r.verb === "patch" && r.resource === "configmaps");
  assert.ok(writes.length >= 4, \`3 failed ConfigMap writes and one that worked, got \${writes.length}\`);
});
`;
}
