// examples/webhook/main.ts as a process against the real control plane, as its README runs it: it
// registers its configurations at --url, kubectl meets the policy in a namespace labelled
// policy=enforced, and SIGTERM stops it and removes the configurations.
import assert from "node:assert/strict";
import { createNamespace, eventually, kubectl, kubectlOk, testEnv } from "../_util/testenv.ts";
import { captureOutput } from "../_util/captured_output.ts";
import { freePort } from "./controller_process.ts";

const main = new URL("../../examples/webhook/main.ts", import.meta.url).pathname;

Deno.test("the webhook example enforces its ConfigMap policy through the real API server", async () => {
  await using ns = await createNamespace("webhook-example");
  await kubectlOk(["label", "namespace", ns.name, "policy=enforced"]);
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-read",
      "--allow-env=HOME,KUBECONFIG",
      "--ignore-env=LOG_TOKENS,LOG_STREAM",
      main,
      `--address=127.0.0.1:${port}`,
      `--url=https://127.0.0.1:${port}`,
    ],
    env: { KUBECONFIG: testEnv.kubeconfig, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = captureOutput(child, "webhook-example");
  const configMap = (name: string, labels: Record<string, string>) =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: ns.name, labels },
      data: { a: "1" },
    });
  try {
    const denied = await eventually(async () => {
      const r = await kubectl(["apply", "-f", "-"], { stdin: configMap("no-team", {}) });
      return r.code !== 0 ? r : undefined;
    }, { message: () => `the webhook never refused a ConfigMap without a team:\n${output.text()}` });
    assert.match(
      denied.stderr,
      /admission webhook "configmaps\.require-team\.example\.com" denied the request: a ConfigMap needs the label team=<owning team>/,
    );
    const legacy = await kubectl(["apply", "-f", "-"], { stdin: configMap("old", { team: "legacy" }) });
    assert.equal(legacy.code, 0, legacy.stderr);
    assert.match(legacy.stderr, /Warning: team=legacy is going away/);
    await kubectlOk(["apply", "-f", "-"], { stdin: configMap("shop", { team: "shop" }) });
    const stored = JSON.parse(await kubectlOk(["get", "configmap", "shop", "-n", ns.name, "-o", "json"]));
    assert.deepEqual(stored.metadata.labels, { team: "shop", "example.com/reviewed-by": "configmap-policy" });
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    await output.done;
    assert.equal(status.code, 0, output.text());
  }
  const gone = await kubectl(["get", "validatingwebhookconfiguration", "configmap-policy"]);
  assert.notEqual(gone.code, 0, "the configurations were removed");
});
