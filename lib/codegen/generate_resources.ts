/**
 * `deno task gen:resources`: regenerates lib/resources/ from the OpenAPI v3 documents of a running
 * kube-apiserver: the local control plane by default (started and stopped here), or the cluster of
 * `--kubeconfig PATH`. Writes only the generated files; `lib/resources/mod.ts` is written by hand.
 * @module
 */
import { KubeClient } from "../client/kube_client.ts";
import { loadConfig } from "../config/load_config.ts";
import { startTestEnv } from "../testing/test_env.ts";
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
  });
}

/** Regenerates the files into `outDir` from the cluster behind `kubeconfig`; returns the written names. */
async function generateInto(outDir: string, kubeconfig: string): Promise<string[]> {
  await using client = new KubeClient(await loadConfig({ kubeconfig }));
  const files = await generateFromCluster(client);
  for (const [name, text] of files) await Deno.writeTextFile(`${outDir}/${name}`, text);
  return [...files.keys()];
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--kubeconfig");
  const out = new URL("../resources/", import.meta.url).pathname;
  let written: string[];
  if (at >= 0 && Deno.args[at + 1]) {
    written = await generateInto(out, Deno.args[at + 1]!);
  } else {
    await using env = await startTestEnv({ controllerManager: false });
    written = await generateInto(out, env.kubeconfig);
  }
  const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", ...written.map((n) => out + n)] })
    .output();
  if (!fmt.success) throw new Error("deno fmt failed on the generated files");
  Deno.stdout.writeSync(new TextEncoder().encode(`Generated ${written.length} files in ${out}\n`));
}
