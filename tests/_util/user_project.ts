/**
 * A throwaway Deno project outside the repository, the way a user meets kubeloop: its own folder, no
 * deno.json and no import map, importing the library by file URL. Tests write its files, then run
 * `deno check`, `deno test` or `deno run` in it with the same Deno binary.
 */
import { join } from "node:path";

/** Output of one deno command run in the project. */
export interface ProjectRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A temporary project; dispose it to delete the folder. */
export interface UserProject extends AsyncDisposable {
  /** The project folder (under the system temp dir, outside the repository). */
  readonly dir: string;
  /**
   * Runs `deno <args>` with the project as working directory; with `clearEnv` the process sees only `env`
   * (and NO_COLOR), as on a machine where none of the test run's variables are set.
   */
  deno(
    args: readonly string[],
    options?: { env?: Record<string, string>; clearEnv?: boolean; signal?: AbortSignal },
  ): Promise<ProjectRun>;
  /** Starts `deno <args>` in the background (stdout and stderr piped); `clearEnv` as for `deno`. */
  spawn(
    args: readonly string[],
    options?: { env?: Record<string, string>; clearEnv?: boolean },
  ): Deno.ChildProcess;
}

/** The library entry point as a file URL, as a user's import would spell it. */
export const LIB_URL = new URL("../../lib/", import.meta.url).href;

/**
 * Creates the project with `files` (name → content; `{{LIB}}` is replaced by the lib/ folder's file URL)
 * and checks that no Deno config file above it could lend it an import map.
 */
export async function createUserProject(files: Record<string, string>): Promise<UserProject> {
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-user-" });
  for (let up = dir; up !== "/"; up = join(up, "..")) {
    for (const name of ["deno.json", "deno.jsonc", "package.json"]) {
      const found = await Deno.stat(join(up, name)).then(() => true, () => false);
      if (found) throw new Error(`A ${name} above ${dir} (in ${up}) would configure the user project`);
    }
  }
  for (const [name, text] of Object.entries(files)) {
    await Deno.mkdir(join(dir, name, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, name), text.replaceAll("{{LIB}}", LIB_URL));
  }
  const command = (args: readonly string[], env: Record<string, string> | undefined, clearEnv = false) =>
    new Deno.Command(Deno.execPath(), {
      args: [...args],
      cwd: dir,
      clearEnv,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1", ...env },
    });
  return {
    dir,
    async deno(args, options = {}) {
      const out = await command(args, options.env, options.clearEnv).output();
      const dec = new TextDecoder();
      return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
    },
    spawn(args, options = {}) {
      return command(args, options.env, options.clearEnv).spawn();
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}
