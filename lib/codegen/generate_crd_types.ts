/**
 * `deno task gen:crds`, or for your own CRDs:
 *
 *   deno run --allow-read --allow-write --allow-run --ignore-env=LOG_TOKENS,LOG_STREAM \
 *     <kubeloop>/lib/codegen/generate_crd_types.ts crds/foo.yaml foo_types.ts [--kind K] [--version V] \
 *     [--import SPEC] [--command TEXT]
 *
 * Reads every CustomResourceDefinition in the YAML file (the first, or the one whose kind is `--kind`),
 * writes its types and typed ResourceRef to the output file and formats it with the `deno fmt` settings of
 * the project the file is written into. `--version` picks the version (default: the storage version);
 * `--import` is the module the output imports kubeloop's base types from (default: a relative path to this
 * checkout's lib/mod.ts). The output's header names the command that wrote it: `--command` (a task name,
 * say), else `generate_crd_types.ts` with the arguments as given. `--help` prints this text. Mistakes print
 * one line naming the file or field at fault and exit non-zero (2 for a bad command line), leaving the
 * output file untouched.
 * @module
 */
import { dirname, resolve } from "node:path";
import { parseAllDocuments } from "npm:yaml@^2.9.1";
import type { CustomResourceDefinition } from "../resources/apiextensions_v1.ts";
import { parseArgs, reason, runCommand, UsageError } from "./_cli.ts";
import { generateCrdTypes } from "./crd_types.ts";

/**
 * Parses the CRDs of a YAML file (documents of kind CustomResourceDefinition); throws an Error naming
 * `file` and the line for malformed YAML, and the document and field for a CRD without the fields the
 * generator reads.
 */
export function parseCrds(text: string, file: string): CustomResourceDefinition[] {
  const out: CustomResourceDefinition[] = [];
  for (const [i, doc] of parseAllDocuments(text, { logLevel: "error" }).entries()) {
    const error = doc.errors[0];
    if (error) throw new Error(`Cannot parse "${file}": ${error.message.split(":\n")[0]}`);
    const value = doc.toJS() as { kind?: unknown } | null;
    if (value?.kind !== "CustomResourceDefinition") continue;
    const crd = value as CustomResourceDefinition;
    const missing = missingField(crd);
    if (missing) {
      const name = crd.metadata?.name === undefined ? "" : ` "${crd.metadata.name}"`;
      throw new Error(
        `Cannot use "${file}": CustomResourceDefinition${name} (document ${i + 1}) has no ${missing}`,
      );
    }
    out.push(crd);
  }
  return out;
}

/** The first field the generator reads that `crd` lacks, or undefined. */
function missingField(crd: CustomResourceDefinition): string | undefined {
  const spec = crd.spec as Partial<CustomResourceDefinition["spec"]> | undefined;
  if (typeof spec?.group !== "string") return "spec.group";
  if (typeof spec.names?.kind !== "string") return "spec.names.kind";
  if (typeof spec.names.plural !== "string") return "spec.names.plural";
  if (!Array.isArray(spec.versions) || spec.versions.length === 0) return "spec.versions";
  return undefined;
}

/** The import specifier of kubeloop's lib/mod.ts as seen from `outFile` (an absolute path). */
function defaultImport(outFile: string): string {
  const target = new URL("../mod.ts", import.meta.url);
  if (target.protocol !== "file:") return target.href;
  const from = dirname(outFile).split("/");
  const to = target.pathname.split("/");
  let i = 0;
  while (i < from.length && from[i] === to[i]) i++;
  const rel = [...from.slice(i).map(() => ".."), ...to.slice(i)].join("/");
  return rel.startsWith(".") ? rel : `./${rel}`;
}

const USAGE =
  "usage: generate_crd_types.ts CRD.yaml OUT.ts [--kind KIND] [--version VERSION] [--import SPEC] " +
  "[--command TEXT]";

const HELP = `${USAGE}

Writes TypeScript types and a typed ResourceRef for a CustomResourceDefinition.

  CRD.yaml          a YAML file holding one or more CustomResourceDefinitions
  OUT.ts            the file to write (formatted with the deno fmt settings of its project)
  --kind KIND       which CRD of the file (default: the first)
  --version V       which of its versions (default: the storage version)
  --import SPEC     where the output imports kubeloop's base types from
                    (default: a relative path to this kubeloop's lib/mod.ts)
  --command TEXT    the command named in the output's header (default: this command line)
  --help            this text

Run with: deno run --allow-read --allow-write --allow-run --ignore-env=LOG_TOKENS,LOG_STREAM \\
  <kubeloop>/lib/codegen/generate_crd_types.ts CRD.yaml OUT.ts
`;

async function main(args: readonly string[]): Promise<void> {
  if (args.includes("--help") || args.includes("-h")) {
    Deno.stdout.writeSync(new TextEncoder().encode(HELP));
    return;
  }
  const { positional, options } = parseArgs(args, ["kind", "version", "import", "command"]);
  if (positional.length !== 2) {
    throw new UsageError(`expected a CRD file and an output file, got ${positional.length} argument(s)`);
  }
  const [input, output] = positional as [string, string];
  const text = await Deno.readTextFile(input).catch((error) => {
    throw new Error(`Cannot read "${input}": ${reason(error)}`);
  });
  const crds = parseCrds(text, input);
  const kind = options.get("kind");
  const crd = kind ? crds.find((c) => c.spec.names.kind === kind) : crds[0];
  if (!crd) {
    const kinds = crds.map((c) => c.spec.names.kind);
    throw new Error(
      `No CustomResourceDefinition${kind ? ` of kind ${kind}` : ""} in "${input}"` +
        (kinds.length > 0 ? ` (it defines ${kinds.join(", ")})` : ""),
    );
  }
  const version = options.get("version");
  const outFile = resolve(output);
  const generated = generateCrdTypes(crd, {
    kubeloop: options.get("import") ?? defaultImport(outFile),
    source: input,
    command: options.get("command") ?? ["generate_crd_types.ts", ...args].join(" "),
    ...(version ? { version } : {}),
  });
  await Deno.writeTextFile(outFile, generated).catch((error) => {
    throw new Error(`Cannot write "${output}": ${reason(error)}`);
  });
  // deno fmt applies the settings of the project the file is in.
  const fmt = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", outFile],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!fmt.success) {
    throw new Error(`deno fmt failed on "${output}": ${new TextDecoder().decode(fmt.stderr).trim()}`);
  }
}

if (import.meta.main) await runCommand("generate_crd_types", USAGE, () => main(Deno.args));
