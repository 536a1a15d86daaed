/** The scale bench's output: one Markdown table row per size and, for several sizes, how cost grew. */

/** What one size measured. */
export interface ScaleResult {
  foos: number;
  pods: number;
  readySeconds: number;
  idleBefore: { rssMiB: number; cpuPercent: number };
  burst: { peakRssMiB: number; cpuSeconds: number; cpuPercent: number };
  idleAfter: { rssMiB: number; cpuPercent: number };
  requestsPerFoo: number;
  requestsByMethod: Record<string, number>;
}

function table(results: readonly ScaleResult[]): string {
  const f1 = (x: number) => x.toFixed(1);
  const rows = [
    "RSS in MiB; CPU as seconds used (and % of one core) during the burst, % of one core when idle afterwards.",
    "",
    "| Foos | Pods | all Ready (s) | RSS before | RSS peak | RSS after | CPU burst | CPU after | requests per Foo |",
    "|---:|---:|---:|---:|---:|---:|---|---:|---|",
  ];
  for (const r of results) {
    const methods = Object.entries(r.requestsByMethod).filter(([, v]) => v > 0)
      .map(([m, v]) => `${m} ${(v / r.foos).toFixed(2)}`).join(", ");
    rows.push(
      `| ${r.foos} | ${r.pods} | ${f1(r.readySeconds)} | ${f1(r.idleBefore.rssMiB)} | ${
        f1(r.burst.peakRssMiB)
      } | ` +
        `${f1(r.idleAfter.rssMiB)} | ${f1(r.burst.cpuSeconds)} (${f1(r.burst.cpuPercent)} %) | ` +
        `${f1(r.idleAfter.cpuPercent)} % | ${r.requestsPerFoo.toFixed(2)} (${methods}) |`,
    );
  }
  return rows.join("\n");
}

/** The table, then (for several sizes) the growth from the first size to the last, newline-terminated. */
export function report(results: readonly ScaleResult[]): string {
  let text = table(results) + "\n";
  const first = results[0];
  const last = results.at(-1);
  if (first && last && results.length > 1) {
    const ratio = (a: number, b: number) => (b / a).toFixed(2);
    text += `\n${first.foos} -> ${last.foos} Foos (x${last.foos / first.foos}): time until Ready x${
      ratio(first.readySeconds, last.readySeconds)
    }, peak RSS x${ratio(first.burst.peakRssMiB, last.burst.peakRssMiB)}, idle RSS after x${
      ratio(first.idleAfter.rssMiB, last.idleAfter.rssMiB)
    }, CPU seconds x${ratio(first.burst.cpuSeconds, last.burst.cpuSeconds)}, requests per Foo x${
      ratio(first.requestsPerFoo, last.requestsPerFoo)
    }\n`;
  }
  return text;
}
