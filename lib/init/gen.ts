/**
 * `deno task gen` of a generated project: regenerates the custom resource's types from its CRD.
 *
 * ```sh
 * deno run --allow-read --allow-write=src --allow-run --ignore-env=LOG_TOKENS,LOG_STREAM \
 *   jsr:@kubeloop/kubeloop/init/gen crds/widgets.example.com.yaml src/widget_types.ts
 * ```
 *
 * The generator writes the first types with the same function, so the two never differ. Exit codes: 0
 * done, 1 failure (one line naming the file at fault), 2 bad command line.
 * @module
 */
import { join } from "node:path";
import { parseAllDocuments } from "npm:yaml@^2.9.1";
import { generateCrdTypes } from "../codegen/mod.ts";
import type { CustomResourceDefinition } from "../resources/apiextensions_v1.ts";

/**
 * Writes the types of the first CustomResourceDefinition in `crdFile` to `typesFile` (both relative to
 * `projectDir`), importing kubeloop as `@kubeloop/kubeloop`, then formats the project with the running
 * Deno's `deno fmt` and the project's settings. Rejects with an Error naming the file at fault.
 */
export async function writeCrdTypes(projectDir: string, crdFile: string, typesFile: string): Promise<void> {
  const text = await Deno.readTextFile(join(projectDir, crdFile)).catch((error) => {
    throw new Error(`Cannot read "${crdFile}": ${(error as Error).message}`, { cause: error });
  });
  const docs = parseAllDocuments(text, { logLevel: "error" });
  const crd = (Array.isArray(docs) ? docs : [docs]).map((d) => {
    const error = d.errors[0];
    if (error) throw new Error(`Cannot parse "${crdFile}": ${error.message.split(":\n")[0]}`);
    return d.toJS() as { kind?: unknown } | null;
  }).find((o) => o?.kind === "CustomResourceDefinition") as CustomResourceDefinition | undefined;
  if (crd === undefined) throw new Error(`No CustomResourceDefinition in "${crdFile}"`);
  const types = generateCrdTypes(crd, {
    kubeloop: "@kubeloop/kubeloop",
    source: crdFile,
    command: "deno task gen",
  });
  await Deno.writeTextFile(join(projectDir, typesFile), types);
  const fmt = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet", typesFile],
    cwd: projectDir,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!fmt.success) {
    throw new Error(`deno fmt failed on "${typesFile}": ${new TextDecoder().decode(fmt.stderr).trim()}`);
  }
}

function fail(message: string, code: number): never {
  Deno.stderr.writeSync(new TextEncoder().encode(`${message}\n`));
  Deno.exit(code);
}

if (import.meta.main) {
  const [crdFile, typesFile, ...rest] = Deno.args;
  if (crdFile === undefined || typesFile === undefined || rest.length > 0) {
    fail("usage: gen.ts CRD.yaml OUT.ts", 2);
  }
  await writeCrdTypes(Deno.cwd(), crdFile, typesFile).catch((error) => fail(`gen: ${error.message}`, 1));
}
