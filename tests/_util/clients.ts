/** Builders of kubeloop clients against the test control plane, for integration tests. */
import { KubeClient, type KubeClientOptions } from "../../lib/client/mod.ts";
import { loadConfig } from "../../lib/config/mod.ts";
import { testEnv } from "./testenv.ts";

/** A KubeClient authenticated as the test admin (system:masters). Dispose it after use. */
export async function adminClient(options: KubeClientOptions = {}): Promise<KubeClient> {
  const config = await loadConfig({ kubeconfig: testEnv.kubeconfig });
  return new KubeClient(config, options);
}

/** Writes a kubeconfig from a plain object into `dir` and returns its path. */
export async function writeKubeconfig(dir: string, name: string, doc: unknown): Promise<string> {
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, JSON.stringify(doc, null, 2));
  return path;
}

/** A single-context kubeconfig document for the test server with the given user entry. */
export function kubeconfigDoc(user: Record<string, unknown>, cluster: Record<string, unknown>): unknown {
  return {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "testenv", cluster: { server: testEnv.server, ...cluster } }],
    users: [{ name: "u", user }],
    contexts: [{ name: "ctx", context: { cluster: "testenv", user: "u" } }],
    "current-context": "ctx",
  };
}

/** Base64 of a UTF-8 string (for *-data fields). */
export function b64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}
