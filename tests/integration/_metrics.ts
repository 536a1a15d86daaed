/** Reading Prometheus text output in integration tests, and checking it with promtool. */

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

/** What `promtool check metrics` said. */
export interface PromtoolResult {
  /** 0: valid and lint-clean; 1: cannot parse; 3: lint problems. */
  code: number;
  /** stdout and stderr together. */
  output: string;
}

/** Pipes `text` into `promtool check metrics`. Fails with an install hint when promtool is missing. */
export async function promtoolCheck(text: string): Promise<PromtoolResult> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("promtool", {
      args: ["check", "metrics"],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(
        "promtool is not installed: install Debian's prometheus package (apt-get install prometheus); .ci/run does",
      );
    }
    throw error;
  }
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, output: dec.decode(out.stdout) + dec.decode(out.stderr) };
}
