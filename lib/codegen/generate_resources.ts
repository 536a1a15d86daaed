/**
 * Reads the OpenAPI v3 documents of a running kube-apiserver and turns them into lib/resources' typed kinds.
 * `deno task gen:resources` (tests/codegen/gen_resources.ts) runs these against a control plane it starts,
 * or against the cluster of `--kubeconfig`; the server always comes in as a client, so code generation
 * needs nothing from lib/testing.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import { CORE_EXTRA_SCHEMAS, CORE_KINDS } from "./core_kinds.ts";
import { generateResourceModules } from "./resource_modules.ts";
import type { OpenApiDocument } from "./schema.ts";

/** What the server lists at `/openapi/v3`. */
interface OpenApiIndex {
  paths: Record<string, { serverRelativeURL: string }>;
}

/** Fetches the OpenAPI v3 documents of the group-versions `kinds` live in. */
export async function fetchOpenApi(
  client: KubeClient,
  groupVersions: readonly string[],
): Promise<OpenApiDocument[]> {
  const index = await client.getPath<OpenApiIndex>("/openapi/v3");
  const docs: OpenApiDocument[] = [];
  for (const gv of groupVersions) {
    const key = gv.includes("/") ? `apis/${gv}` : `api/${gv}`;
    if (!index.paths[key]) throw new Error(`The server publishes no OpenAPI v3 document for ${key}`);
    docs.push(await client.getPath<OpenApiDocument>(`/openapi/v3/${key}`));
  }
  return docs;
}

/** The generated files (name → unformatted source) for the cluster `client` talks to. */
export async function generateFromCluster(client: KubeClient): Promise<Map<string, string>> {
  const version = await client.getPath<{ gitVersion: string }>("/version");
  const groupVersions = [
    ...new Set(CORE_KINDS.map((k) => (k.group ? `${k.group}/${k.version}` : k.version))),
  ];
  return generateResourceModules(await fetchOpenApi(client, groupVersions), {
    kinds: CORE_KINDS,
    extraSchemas: CORE_EXTRA_SCHEMAS,
    source: `kube-apiserver ${version.gitVersion}`,
    command: "deno task gen:resources",
  });
}
