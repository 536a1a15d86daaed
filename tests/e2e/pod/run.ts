/** Runs a command to completion; returns its stdout, or throws with its stderr naming the command. */
export async function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; clearEnv?: boolean } = {},
): Promise<string> {
  const out = await new Deno.Command(command, {
    args: [...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...options,
  }).output();
  const decoder = new TextDecoder();
  if (!out.success) {
    const stderr = decoder.decode(out.stderr).trim().slice(-4000);
    throw new Error(`${command} ${args.join(" ")} exited with code ${out.code}: ${stderr}`);
  }
  return decoder.decode(out.stdout);
}
