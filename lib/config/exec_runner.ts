/** What {@linkcode ExecRunner} receives besides the command. */
export interface ExecRunOptions {
  /** Command-line arguments. */
  readonly args: readonly string[];
  /** Variables added to the inherited environment (exec `env` and `KUBERNETES_EXEC_INFO`). */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Working directory.
   * @default {the current directory (client-go does not change it either)}
   */
  readonly cwd?: string;
  /**
   * Kills the process when aborted.
   * @default {never aborted}
   */
  readonly signal?: AbortSignal | undefined;
}

/** The outcome of a finished process. */
export interface ExecResult {
  /** Exit code. */
  readonly code: number;
  /** Standard output, UTF-8 decoded. */
  readonly stdout: string;
  /** Standard error, UTF-8 decoded. */
  readonly stderr: string;
}

/** Runs an exec credential plugin to completion; injectable so tests can script plugins. */
export type ExecRunner = (command: string, options: ExecRunOptions) => Promise<ExecResult>;

/** Runs the plugin with Deno.Command: stdin closed (never interactive), stdout and stderr captured. */
export async function defaultExecRunner(command: string, options: ExecRunOptions): Promise<ExecResult> {
  const output = await new Deno.Command(command, {
    args: [...options.args],
    env: { ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}
