/**
 * `deno task gen:crds`, or for your own CRDs:
 *
 *   deno run --allow-read --allow-write --allow-run --ignore-env=LOG_TOKENS,LOG_STREAM \
 *     <kubeloop>/lib/codegen/generate_crd_types.ts crds/foo.yaml foo_types.ts [--version v1] [--import SPEC]
 *
 * Reads every CustomResourceDefinition in the YAML file (the first, or the one whose kind is `--kind`),
 * writes its types and typed ResourceRef to the output file and formats it. `--import` is the module the
 * output imports kubeloop's base types from (default: a relative path to this checkout's lib/mod.ts).
 * @module
 */
import { parseAllDocuments } from "npm:yaml@^2.9.1";
import type { CustomResourceDefinition } from "../resources/apiextensions_v1.ts";
import { generateCrdTypes } from "./crd_types.ts";

/** Parses the CRDs of a YAML file (documents of kind CustomResourceDefinition). */
export function parseCrds(text: string, file: string): CustomResourceDefinition[] {
  const out: CustomResourceDefinition[] = [];
  for (const doc of parseAllDocuments(text, { logLevel: "error" })) {
    if (doc.errors.length > 0) throw new Error(`Cannot parse "${file}": ${doc.errors[0]!.code}`);
    const value = doc.toJS() as { kind?: unknown } | null;
    if (value?.kind === "CustomResourceDefinition") out.push(value as CustomResourceDefinition);
  }
  return out;
}

/** The import specifier of kubeloop's lib/mod.ts as seen from `outFile`. */
function defaultImport(outFile: string): string {
  const target = new URL("../mod.ts", import.meta.url);
  if (target.protocol !== "file:") return target.href;
  const from = new URL(outFile, `file://${Deno.cwd()}/`).pathname.split("/").slice(0, -1);
  const to = target.pathname.split("/");
  let i = 0;
  while (i < from.length && from[i] === to[i]) i++;
  const up = from.slice(i).map(() => "..");
  const rel = [...up, ...to.slice(i)].join("/");
  return rel.startsWith(".") ? rel : `./${rel}`;
}

if (import.meta.main) {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < Deno.args.length; i++) {
    const arg = Deno.args[i]!;
    if (arg.startsWith("--")) flags.set(arg.slice(2), Deno.args[++i] ?? "");
    else positional.push(arg);
  }
  const [input, output] = positional;
  if (!input || !output) {
    throw new TypeError(
      "usage: generate_crd_types.ts CRD.yaml OUT.ts [--kind K] [--version V] [--import SPEC]",
    );
  }
  const crds = parseCrds(await Deno.readTextFile(input), input);
  const kind = flags.get("kind");
  const crd = kind ? crds.find((c) => c.spec.names.kind === kind) : crds[0];
  if (!crd) throw new Error(`No CustomResourceDefinition${kind ? ` of kind ${kind}` : ""} in "${input}"`);
  const version = flags.get("version");
  const text = generateCrdTypes(crd, {
    kubeloop: flags.get("import") ?? defaultImport(output),
    source: input,
    ...(version ? { version } : {}),
  });
  await Deno.writeTextFile(output, text);
  const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", output] }).output();
  if (!fmt.success) throw new Error(`deno fmt failed on ${output}`);
}
