import type { Project } from "../project.ts";
import { docComment } from "./doc_comment.ts";
import { KUBELOOP, TESTING } from "./specifiers.ts";

/** tests/e2e_test.ts: the controller in-process against a real API server from startTestEnv. */
export function e2eTestTs(p: Project): string {
  const K = p.kind;
  const v = p.variable;
  const R = p.refName;
  const where = p.namespaced ? `, { namespace: "default" }` : "";
  const moduleDoc = docComment(
    `End-to-end test on a real control plane: kubeloop's startTestEnv starts etcd and kube-apiserver ` +
      `for this test (a few seconds), the CRD is applied with kubectl as you would apply it to a ` +
      `cluster, and the controller runs in this process, wired as main.ts wires it. It needs the ` +
      `control plane's binaries: $KUBELOOP_TESTENV_BIN, or Go to build them once (see the README).`,
  );
  return `${moduleDoc}
import assert from "node:assert/strict";
import {
  ApiError,
  CONFIG_MAPS,
  isConditionTrue,
  KubeClient,
  loadConfig,
  Manager,
  SharedInformerFactory,
} from ${KUBELOOP};
import { startTestEnv } from ${TESTING};
import { ${v}Controller } from "../${p.files.controller}";
import { ${R} } from "../${p.files.types}";

/** Runs kubectl against the test control plane; throws with its output when it fails. */
async function kubectl(env: { kubectl: string; kubeconfig: string }, ...args: string[]): Promise<void> {
  const command = new Deno.Command(env.kubectl, { args: [\`--kubeconfig=\${env.kubeconfig}\`, ...args] });
  const out = await command.output();
  const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
  assert.ok(out.success, \`kubectl \${args.join(" ")} failed:\\n\${text}\`);
}

/** Polls \`check\` until it holds (or 60 s pass): the controller works asynchronously. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(\`timed out waiting for \${what}\`);
}

Deno.test("a ${K} on a real API server gets its ConfigMap and turns Ready, and its deletion completes", async () => {
  await using env = await startTestEnv({ controllerManager: false });
  await kubectl(env, "apply", "-f", "crds/");
  await kubectl(env, "wait", "--for=condition=Established", "--timeout=60s", "crd/${p.crdName}");

  await using client = new KubeClient(await loadConfig({ kubeconfig: env.kubeconfig }));
  const informers = new SharedInformerFactory(client);
  const manager = new Manager(informers, { healthAddress: "0", metricsAddress: "0" });
  manager.controller(${v}Controller({ informers, client${p.namespaced ? "" : `, namespace: "default"`} }));
  const stop = new AbortController();
  const running = manager.run({ signal: stop.signal });
  try {
    await client.create(${R}, {
      apiVersion: "${p.group}/${p.version}",
      kind: "${K}",
      metadata: { name: "hello"${p.namespaced ? `, namespace: "default"` : ""} },
      spec: { message: "Hi" },
    });
    const get = () => client.get(${R}, "hello"${where});
    await eventually(async () => isConditionTrue((await get()).status?.conditions, "Ready"), "Ready=True");
    const configMap = await client.get(CONFIG_MAPS, "hello", { namespace: "default" });
    assert.equal(configMap.data?.["message"], "Hi");

    await client.delete(${R}, "hello"${where});
    const gone = (error: unknown) => {
      if (error instanceof ApiError && error.isNotFound) return true;
      throw error;
    };
    await eventually(() => get().then(() => false, gone), "the ${K} to go (our finalizer removed)");
  } finally {
    stop.abort();
    await running;
  }
});
`;
}
