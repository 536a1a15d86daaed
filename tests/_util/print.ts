/** Output of command-line test tools (the no-console rule is about library code; this is not). */
const encoder = new TextEncoder();

function writeAll(out: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text + "\n");
  let written = 0;
  while (written < bytes.length) written += out.writeSync(bytes.subarray(written));
}

/** Writes one line to stdout. */
export function print(text: string): void {
  writeAll(Deno.stdout, text);
}

/** Writes one line to stderr. */
export function printErr(text: string): void {
  writeAll(Deno.stderr, text);
}
