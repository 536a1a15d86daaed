/** Reading Prometheus text output in integration tests (checking it: tests/_util/metrics_check.ts). */

/** Fetches a /metrics page as text; fails on a non-200 answer. */
export async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${text}`);
  return text;
}

/**
 * The sum of every sample of `name` whose labels include `labels`, or undefined when there is none.
 * Only the simple forms our registry writes are understood (no escaped quotes inside label values).
 */
export function sampleSum(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  let sum: number | undefined;
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = new Map<string, string>();
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)) {
      found.set(pair[1]!, pair[2]!);
    }
    if (!Object.entries(labels).every(([k, v]) => found.get(k) === v)) continue;
    sum = (sum ?? 0) + Number(match[3]);
  }
  return sum;
}
