/** deno.json's "compile" task, read into its flags, output and entry module. */
import { sourceError as fail } from "./source_error.ts";

/** deno.json's "compile" task. */
export interface CompileSpec {
  /** Every flag except `--output` (permission, V8 and lockfile flags), in task order. */
  readonly flags: readonly string[];
  /** `--output` path, relative to the build stage's WORKDIR. */
  readonly output: string;
  /** The entry module, relative to the repository. */
  readonly entry: string;
  /** Paths of `--allow-read=...`, or "all" for a bare `--allow-read`. */
  readonly readPaths: readonly string[] | "all";
  /** Names of `--allow-env=...`, or "all" for a bare `--allow-env`. */
  readonly envNames: readonly string[] | "all";
}

function listFlag(flags: readonly string[], name: string): readonly string[] | "all" {
  const found = flags.filter((f) => f === name || f.startsWith(`${name}=`));
  if (found.includes(name)) return "all";
  return found.flatMap((f) => f.slice(name.length + 1).split(",")).filter((p) => p !== "");
}

/** Reads deno.json's "compile" task. */
export function compileSpec(denoJson: string): CompileSpec {
  const task = (JSON.parse(denoJson) as { tasks?: Record<string, string> }).tasks?.["compile"] ??
    fail('deno.json has no "compile" task');
  const words = task.trim().split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "compile") {
    fail(`the compile task is not "deno compile ...": ${task}`);
  }
  const rest = words.slice(2);
  let output: string | undefined;
  const flags: string[] = [];
  let entry: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    if (w === "--output" || w === "-o") output = rest[++i];
    else if (w.startsWith("--output=")) output = w.slice("--output=".length);
    else if (!w.startsWith("-")) entry = w;
    else flags.push(w);
  }
  if (!output || !entry) fail(`the compile task names no --output or entry module: ${task}`);
  return {
    flags,
    output,
    entry,
    readPaths: listFlag(flags, "--allow-read"),
    envNames: listFlag(flags, "--allow-env"),
  };
}
