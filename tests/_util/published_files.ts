/**
 * The files `deno publish` would upload, as deno itself lists them in a dry run (which works offline): the
 * package's file set is never a list kept by hand.
 */

/** A finished `deno publish --dry-run`. */
export interface PublishDryRun {
  readonly code: number;
  /** stdout and stderr together, for assertion messages. */
  readonly output: string;
  /** Paths relative to the repository root, in deno's order. */
  readonly files: string[];
}

/** The repository root, where deno.json's `publish` section lives. */
export const REPO_ROOT: URL = new URL("../../", import.meta.url);

/** Runs `deno publish --dry-run --allow-dirty` in the repository and reads the file list from its output. */
export async function publishDryRun(): Promise<PublishDryRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["publish", "--dry-run", "--allow-dirty"],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const output = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
  // "   file:///…/lib/mod.ts (1.2KB)", one line per file.
  const files = [...output.matchAll(/^\s+(file:\/\/\S+) \([\d.]+[KMG]?B\)$/gm)].map((m) => {
    const url = m[1]!;
    if (!url.startsWith(REPO_ROOT.href)) {
      throw new Error(`deno publish lists a file outside the repository: ${url}`);
    }
    return decodeURIComponent(url.slice(REPO_ROOT.href.length));
  });
  return { code: out.code, output, files };
}
