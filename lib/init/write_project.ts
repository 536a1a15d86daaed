/**
 * Writes a generated project to disk: the templates' files, the CRD's types (written from the CRD file
 * just written by {@linkcode writeCrdTypes}, which `deno task gen` runs too, so regenerating changes
 * nothing until the CRD changes), then `deno fmt` formats it all with the project's own settings (names
 * of any length change where lines break).
 * @module
 */
import { dirname, join } from "node:path";
import { UsageError } from "./args.ts";
import { writeCrdTypes } from "./gen.ts";
import type { Project } from "./project.ts";
import { projectFiles } from "./project_files.ts";

/**
 * Writes `project` into `dir`, which must not exist or be empty (a UsageError otherwise, before anything
 * is written). Resolves with the project-relative paths written. The running Deno's `deno fmt` formats
 * the project.
 */
export async function writeProject(dir: string, project: Project): Promise<string[]> {
  await checkEmpty(dir);
  const files = projectFiles(project);
  for (const [path, text] of files) {
    await Deno.mkdir(join(dir, dirname(path)), { recursive: true });
    await Deno.writeTextFile(join(dir, path), text);
  }
  await Deno.mkdir(join(dir, dirname(project.files.types)), { recursive: true });
  await writeCrdTypes(dir, project.files.crd, project.files.types);
  const fmt = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet"],
    cwd: dir,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!fmt.success) {
    throw new Error(
      `deno fmt failed in "${dir}": ${new TextDecoder().decode(fmt.stderr).trim()}`,
    );
  }
  return [...files.keys(), project.files.types];
}

async function checkEmpty(dir: string): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    if (error instanceof Deno.errors.NotADirectory) {
      throw new UsageError(`project directory "${dir}" is a file`);
    }
    throw error;
  }
  if (entries.length > 0) {
    const names = entries.map((e) => e.name).sort().slice(0, 3).join(", ");
    throw new UsageError(
      `project directory "${dir}" is not empty (it holds ${names}${entries.length > 3 ? ", …" : ""})`,
    );
  }
}
