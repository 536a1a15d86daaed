/**
 * The ConfigMapMirror behaviour, checked with kubectl against the real control plane while a controller
 * process runs: shared by the example's e2e test and the user-project test.
 */
import assert from "node:assert/strict";
import { eventually, kubectl, kubectlOk } from "../_util/testenv.ts";

/** The copy's data as JSON, or undefined while it does not exist. */
async function mirrorData(namespace: string, name: string): Promise<string | undefined> {
  const r = await kubectl(["get", "configmap", `${name}-mirror`, "-n", namespace, "-o", "json"]);
  if (r.code !== 0) return undefined;
  return JSON.stringify((JSON.parse(r.stdout) as { data?: unknown }).data ?? {});
}

/** Runs the scenario in `namespace`; `describe` adds the controller's output to failure messages. */
export async function assertMirrors(namespace: string, describe: () => string): Promise<void> {
  const n = ["-n", namespace];
  const wait = <T>(fn: () => Promise<T | undefined>, message: string) =>
    eventually(fn, { timeoutMs: 30_000, message: `${message}\n--- controller output ---\n${describe()}` });
  await kubectlOk(["create", "configmap", "settings", ...n, "--from-literal=a=1", "--from-literal=b=2"]);
  await kubectlOk(["create", "configmap", "plain", ...n, "--from-literal=c=3"]);
  await kubectlOk(["label", "configmap", "settings", ...n, "mirror=true"]);
  await wait(
    async () => (await mirrorData(namespace, "settings")) === '{"a":"1","b":"2"}' || undefined,
    "copy",
  );
  const owner = JSON.parse(await kubectlOk(["get", "configmap", "settings-mirror", ...n, "-o", "json"])) as {
    metadata: { ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
  };
  assert.deepEqual(owner.metadata.ownerReferences?.map((o) => `${o.kind}/${o.name}/${o.controller}`), [
    "ConfigMap/settings/true",
  ]);
  assert.equal(await mirrorData(namespace, "plain"), undefined, "unlabelled ConfigMaps are not mirrored");
  await kubectlOk([
    "patch",
    "configmap",
    "settings",
    ...n,
    "--type=merge",
    "-p",
    '{"data":{"a":"10","b":null}}',
  ]);
  await wait(async () => (await mirrorData(namespace, "settings")) === '{"a":"10"}' || undefined, "update");
  await kubectlOk(["label", "configmap", "settings", ...n, "mirror-"]);
  await wait(
    async () => (await mirrorData(namespace, "settings")) === undefined || undefined,
    "unlabel deletes",
  );
  await kubectlOk(["label", "configmap", "plain", ...n, "mirror=true"]);
  await wait(async () => (await mirrorData(namespace, "plain")) === '{"c":"3"}' || undefined, "second copy");
  await kubectlOk(["delete", "configmap", "plain", ...n]);
  await wait(async () => (await mirrorData(namespace, "plain")) === undefined || undefined, "collected");
}
