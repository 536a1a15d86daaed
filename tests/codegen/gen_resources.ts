/**
 * `deno task gen:resources`: regenerates lib/resources/ from the OpenAPI v3 documents of a running
 * kube-apiserver: the local control plane by default (started and stopped here), or the cluster of
 * `--kubeconfig PATH`. Writes only the generated files, formatted with this checkout's `deno fmt`
 * settings, into lib/resources/ or `--out DIR`; `lib/resources/mod.ts` is written by hand. Mistakes print
 * one line and exit non-zero (2 for a bad command line). It lives outside lib/ because it starts the
 * control plane (lib/testing), which the code generators below it must not depend on.
 * @module
 */
import { join } from "node:path";
import { KubeClient } from "../../lib/client/kube_client.ts";
import { loadConfig } from "../../lib/config/load_config.ts";
import { parseArgs, runCommand, UsageError } from "../../lib/codegen/_cli.ts";
import { generateFromCluster } from "../../lib/codegen/generate_resources.ts";
import { startTestEnv } from "../../lib/testing/test_env.ts";

/** Regenerates the files into `outDir` from the cluster behind `kubeconfig`; returns the written names. */
async function generateInto(outDir: string, kubeconfig: string): Promise<string[]> {
  await using client = new KubeClient(await loadConfig({ kubeconfig }));
  const files = await generateFromCluster(client);
  for (const [name, text] of files) await Deno.writeTextFile(join(outDir, name), text);
  return [...files.keys()];
}

const USAGE = "usage: deno task gen:resources [--kubeconfig PATH] [--out DIR]";

async function main(args: readonly string[]): Promise<void> {
  const { positional, options } = parseArgs(args, ["kubeconfig", "out"]);
  if (positional.length > 0) throw new UsageError(`unexpected argument "${positional[0]}"`);
  const out = options.get("out") ?? new URL("../../lib/resources/", import.meta.url).pathname;
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
