// examples/configmap_mirror/main.ts as a process against the real control plane: copies appear, follow
// their source, go when the label goes and are collected with their source; SIGTERM stops it cleanly.
import assert from "node:assert/strict";
import { createNamespace, testEnv } from "../_util/testenv.ts";
import { captureOutput } from "../_util/captured_output.ts";
import { freePort } from "./controller_process.ts";
import { assertMirrors } from "./_mirror_scenario.ts";

const main = new URL("../../examples/configmap_mirror/main.ts", import.meta.url).pathname;

Deno.test("the ConfigMapMirror example mirrors labelled ConfigMaps on the real control plane", async () => {
  await using ns = await createNamespace("mirror-example");
  const health = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-env=HOME,KUBECONFIG,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT",
      "--ignore-env=LOG_TOKENS,LOG_STREAM",
      "--allow-sys=hostname",
      main,
      "--metrics-bind-address=0",
      `--health-probe-bind-address=127.0.0.1:${health}`,
    ],
    env: { KUBECONFIG: testEnv.kubeconfig, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = captureOutput(child);
  try {
    await assertMirrors(ns.name, output.text);
    const ready = await fetch(`http://127.0.0.1:${health}/readyz`);
    assert.equal(ready.status, 200, await ready.text());
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    await output.done;
    assert.equal(status.code, 0, output.text());
  }
  assert.match(output.text(), /"msg":"Manager stopped"/);
});
