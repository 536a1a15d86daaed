/**
 * A kubeconfig with a service-account token and the control plane's CA: the credentials a controller has in
 * a pod (and, for kubeloop, Deno's own TLS rather than the Node layer a client certificate needs).
 */
import { join } from "node:path";
import type { ControlPlane } from "./control_plane.ts";

/**
 * Creates service account `name` in `namespace`, binds it to cluster-admin, and writes a kubeconfig (mode
 * 0600, in a new temporary directory) with a token of it valid for 24 h; returns its path.
 */
export async function tokenKubeconfig(cp: ControlPlane, namespace: string, name: string): Promise<string> {
  await cp.kubectlOk(["create", "serviceaccount", name, "-n", namespace]);
  await cp.kubectlOk([
    "create",
    "clusterrolebinding",
    `${namespace}-${name}`,
    "--clusterrole=cluster-admin",
    `--serviceaccount=${namespace}:${name}`,
  ]);
  const token = (await cp.kubectlOk(["create", "token", name, "-n", namespace, "--duration=24h"])).trim();
  const ca = await Deno.readTextFile(join(cp.dir, "ca.crt"));
  const path = join(await Deno.makeTempDir({ prefix: "kubeloop-bench-auth-" }), "kubeconfig");
  const yaml = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: bench",
    "  cluster:",
    `    server: ${cp.server}`,
    `    certificate-authority-data: ${btoa(ca)}`,
    "users:",
    "- name: bench",
    "  user:",
    `    token: ${token}`,
    "contexts:",
    "- name: bench",
    "  context:",
    "    cluster: bench",
    "    user: bench",
    "current-context: bench",
    "",
  ].join("\n");
  await Deno.writeTextFile(path, yaml, { mode: 0o600 });
  return path;
}
