/**
 * What the generators' command lines share: `--name value` options checked against the known names, and
 * failures reported as one line on stderr (no stack trace) with a non-zero exit code.
 * @module
 */

/** A mistake in the command line: reported with the usage line, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Command-line arguments split into positional ones and options. */
export interface ParsedArgs {
  readonly positional: string[];
  readonly options: Map<string, string>;
}

/** Splits `args` into positional arguments and `--name value` / `--name=value` options of `names`. */
export function parseArgs(args: readonly string[], names: readonly string[]): ParsedArgs {
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (!names.includes(name)) throw new UsageError(`unknown option "${arg}"`);
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (!value || (eq < 0 && value.startsWith("--"))) throw new UsageError(`option --${name} needs a value`);
    options.set(name, value);
  }
  return { positional, options };
}

/**
 * Runs a generator's command-line entry. A failure prints "`command`: message" to stderr (and the usage
 * line after a UsageError) and sets the exit code to 2 for usage errors, 1 otherwise.
 */
export async function runCommand(command: string, usage: string, main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    const usageError = error instanceof UsageError;
    const text = `${command}: ${reason(error)}\n${usageError ? `${usage}\n` : ""}`;
    Deno.stderr.writeSync(new TextEncoder().encode(text));
    Deno.exitCode = usageError ? 2 : 1;
  }
}

/** The message of `error`, for "Cannot …: <reason>" lines. */
export function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
