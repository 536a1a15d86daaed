/**
 * `deno task gen:resources`: regenerates lib/resources/ from the OpenAPI v3 documents of a running
 * kube-apiserver: the local control plane by default (started and stopped here), or the cluster of
 * `--kubeconfig PATH`. Writes only the generated files, formatted with this checkout's `deno fmt`
 * settings, into lib/resources/ or `--out DIR`; `lib/resources/mod.ts` is written by hand. Mistakes print
 * one line and exit non-zero (2 for a bad command line).
 * @module
 */
import { join } from "node:path";
import { KubeClient } from "../client/kube_client.ts";
import { loadConfig } from "../config/load_config.ts";
import { startTestEnv } from "../testing/test_env.ts";
import { parseArgs, runCommand, UsageError } from "./_cli.ts";
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
  for (const [name, text] of files) await Deno.writeTextFile(join(outDir, name), text);
  return [...files.keys()];
}

const USAGE = "usage: generate_resources.ts [--kubeconfig PATH] [--out DIR]";

async function main(args: readonly string[]): Promise<void> {
  const { positional, options } = parseArgs(args, ["kubeconfig", "out"]);
  if (positional.length > 0) throw new UsageError(`unexpected argument "${positional[0]}"`);
  const out = options.get("out") ?? new URL("../resources/", import.meta.url).pathname;
  if (!(await Deno.stat(out).then((s) => s.isDirectory, () => false))) {
    throw new Error(`The output directory "${out}" does not exist`);
  }
  const kubeconfig = options.get("kubeconfig");
  let written: string[];
  if (kubeconfig) {
    written = await generateInto(out, kubeconfig);
  } else {
    await using env = await startTestEnv({ controllerManager: false });
    written = await generateInto(out, env.kubeconfig);
  }
  const fmt = await new Deno.Command(Deno.execPath(), {
    args: [
      "fmt",
      `--config=${new URL("../../deno.json", import.meta.url).pathname}`,
      ...written.map((n) => join(out, n)),
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!fmt.success) {
    throw new Error(`deno fmt failed on the generated files: ${new TextDecoder().decode(fmt.stderr).trim()}`);
  }
  Deno.stdout.writeSync(new TextEncoder().encode(`Generated ${written.length} files in ${out}\n`));
}

if (import.meta.main) await runCommand("generate_resources", USAGE, () => main(Deno.args));
