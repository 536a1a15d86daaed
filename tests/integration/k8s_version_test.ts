// The suite runs against the Kubernetes release KUBELOOP_K8S_VERSION selects (the newest pinned one when unset),
// and every control-plane component comes from that same release.
import assert from "node:assert/strict";
import { join } from "node:path";
import { kubectlOk, testEnv } from "../_util/testenv.ts";

async function binaryVersion(name: string): Promise<string> {
  const out = await new Deno.Command(join(testEnv.binDir, name), { args: ["--version"], stdout: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("kube-apiserver, kube-controller-manager and kube-scheduler are the selected release", async () => {
  const server = JSON.parse(await kubectlOk(["version", "-o", "json"])).serverVersion;
  const wanted = Deno.env.get("KUBELOOP_K8S_VERSION")?.replace(/^v/, "");
  if (wanted) assert.equal(`${server.major}.${server.minor}`, wanted);
  assert.match(server.gitVersion, /^v1\.\d+\.\d+$/);
  for (const name of ["kube-apiserver", "kube-controller-manager", "kube-scheduler"]) {
    assert.equal(await binaryVersion(name), `Kubernetes ${server.gitVersion}`, name);
  }
});
