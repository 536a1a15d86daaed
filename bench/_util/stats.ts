/** Small statistics helpers shared by the benches. */

/** The median of `values` (the mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Writes a line to stdout (bench output; the library's no-console rule is about library code). */
export function print(text = ""): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

/** Writes a progress line to stderr. */
export function progress(text: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`bench: ${text}\n`));
}

/** Megabytes (10^6 bytes) with one decimal. */
export function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}
