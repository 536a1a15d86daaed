/**
 * The acceptance test of kubeloop as a library: a project in an empty folder outside the repository, with
 * no import map, holding a copy of examples/configmap_mirror (imports pointed at lib/ by file URL) and an
 * integration test of its own. It type-checks without casts, passes its unit tests on lib/testing, runs its
 * integration test against a control plane started by startTestEnv(), and runs as a process against the
 * real control plane.
 */
import assert from "node:assert/strict";
import { createNamespace, testEnv } from "../_util/testenv.ts";
import { captureOutput } from "../_util/captured_output.ts";
import { createUserProject } from "../_util/user_project.ts";
import { freePort } from "./controller_process.ts";
import { assertMirrors } from "./_mirror_scenario.ts";

const example = new URL("../../examples/configmap_mirror/", import.meta.url);

/** An integration test a user writes: their controller in-process against startTestEnv's control plane. */
const INTEGRATION_TEST = `
import { CONFIG_MAPS, Controller, EventRecorder, KubeClient, loadConfig, SharedInformerFactory } from "{{LIB}}mod.ts";
import { startTestEnv } from "{{LIB}}testing/mod.ts";
import { mirrorController } from "./mirror.ts";

Deno.test("the mirror controller copies a labelled ConfigMap on a real control plane", async () => {
  await using env = await startTestEnv({ controllerManager: false });
  await using client = new KubeClient(await loadConfig({ kubeconfig: env.kubeconfig, env: () => undefined }));
  const informers = new SharedInformerFactory(client);
  await using recorder = new EventRecorder(client, { reportingController: "user-test" });
  const c = new Controller(informers, mirrorController({ informers, client, recorder }));
  const stop = new AbortController();
  informers.start(stop.signal);
  const running = c.run({ signal: stop.signal });
  try {
    await client.create(CONFIG_MAPS, {
      metadata: { name: "settings", namespace: "default", labels: { mirror: "true" } },
      data: { a: "1" },
    });
    for (let i = 0; i < 200; i++) {
      const copy = await client.get(CONFIG_MAPS, "settings-mirror", { namespace: "default" }).catch(() => undefined);
      if (copy?.data?.["a"] === "1") return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("no copy within 20 s");
  } finally {
    stop.abort();
    await running;
    await informers.stopped();
  }
});
`;

Deno.test("a user project outside the repo type-checks, unit-tests, integration-tests and runs kubeloop", async () => {
  const files: Record<string, string> = { "mirror_integration_test.ts": INTEGRATION_TEST };
  for (const name of ["mirror.ts", "main.ts", "mirror_test.ts"]) {
    const text = await Deno.readTextFile(new URL(name, example));
    files[name] = text.replaceAll("../../lib/", "{{LIB}}");
  }
  for (const [name, text] of Object.entries(files)) {
    assert.doesNotMatch(text, /\bas (unknown|ConfigMap|KubeObject|any)\b/, `${name} needs no casts`);
    assert.doesNotMatch(text, /"\.\.\//, `${name} reaches nothing in the repository by relative path`);
  }
  await using project = await createUserProject(files);

  const check = await project.deno(["check", "main.ts", "mirror_test.ts", "mirror_integration_test.ts"]);
  assert.equal(check.code, 0, check.stderr);

  const unit = await project.deno(["test", "--allow-all", "mirror_test.ts"]);
  assert.equal(unit.code, 0, unit.stdout + unit.stderr);
  assert.match(unit.stdout, /ok \| 4 passed \| 0 failed/);

  const integration = await project.deno(["test", "--allow-all", "mirror_integration_test.ts"], {
    env: { KUBELOOP_TESTENV_BIN: testEnv.binDir },
  });
  assert.equal(integration.code, 0, integration.stdout + integration.stderr);
  assert.match(integration.stdout, /ok \| 1 passed \| 0 failed/);

  await using ns = await createNamespace("user-project");
  const child = project.spawn([
    "run",
    "--allow-net",
    "--allow-read",
    "--allow-env=HOME,KUBECONFIG,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT",
    "--ignore-env=LOG_TOKENS,LOG_STREAM",
    "--allow-sys=hostname",
    "main.ts",
    "--metrics-bind-address=0",
    `--health-probe-bind-address=127.0.0.1:${freePort()}`,
  ], { env: { KUBECONFIG: testEnv.kubeconfig } });
  const output = captureOutput(child);
  try {
    await assertMirrors(ns.name, output.text);
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    await output.done;
    assert.equal(status.code, 0, output.text());
  }
});
