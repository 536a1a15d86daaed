/**
 * The long run of the HTTP/1.1 differential test against Go's net/http (`deno task fuzz:http`):
 *   deno run -A tests/differential/http_fuzz.ts [--cases=20000] [--seed=N] [--seeds=a,b,c]
 * Prints a summary and every mismatch no known difference explains; exits 1 if there is one.
 */
import { print } from "../_util/print.ts";
import { describeBytes } from "./_http_cases.ts";
import { runHttpDifferential, type Verdict } from "./_http_differential.ts";

const args = new Map(Deno.args.map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const seed = Number(args.get("seed") ?? Date.now() % 1_000_000);
const cases = Number(args.get("cases") ?? 20_000);
const seeds = args.get("seeds")?.split(",").map(Number);
const started = performance.now();
const report = await runHttpDifferential({ seed, cases, ...(seeds ? { seeds } : {}) });
const show = (v: Verdict) =>
  v.ok ? `${v.status}, ${v.body.length} body bytes` : `refused: ${v.error.slice(0, 200)}`;
for (const m of report.unexplained.slice(0, 30)) {
  print(
    `\n--- case seed ${m.case.seed} (${m.case.method}; cuts ${m.case.cuts.join(",")}; tags ${
      [...m.case.tags].join(",")
    })`,
  );
  print(`ours: ${show(m.ours)}\ngo:   ${show(m.go)}`);
  print(describeBytes(m.case.bytes));
}
print(
  `\nseed ${seed}: ${report.cases} cases in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
    `both accepted ${report.bothAccepted}, both refused ${report.bothRefused}, known differences ` +
    `${JSON.stringify(Object.fromEntries(report.known))}, unexplained ${report.unexplained.length}`,
);
if (report.unexplained.length > 0) Deno.exit(1);
