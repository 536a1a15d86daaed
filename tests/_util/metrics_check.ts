/**
 * Checks Prometheus text exposition with `metrics-check` (tests/testenv/metrics_check): the text parser a
 * Prometheus server scrapes with, a refusal of repeated series, and client_golang's promlint rules. It is
 * built from Go modules with the control plane and cached like kube-apiserver, so no system package is
 * needed.
 *
 * Where the binary comes from, first match wins: $KUBELOOP_METRICS_CHECK (set by tests/run.sh),
 * `$KUBELOOP_TESTENV_BIN/metrics-check`, else `bash tests/testenv/build.sh metrics-check` (builds it on
 * first use, showing progress on stderr).
 */
import { join } from "node:path";

/** What the checker said about one exposition. */
export interface MetricsCheckResult {
  /** 0: valid and lint-clean; 1: does not parse or repeats a series; 3: lint problems. */
  readonly code: number;
  /** stdout and stderr together: one "<metric>: <problem>" line per lint problem, or the parse error. */
  readonly output: string;
}

let located: Promise<string> | undefined;

async function build(): Promise<string> {
  const script = new URL("../testenv/build.sh", import.meta.url).pathname;
  const out = await new Deno.Command("bash", {
    args: [script, "metrics-check"],
    stdout: "piped",
    stderr: "inherit",
  })
    .output();
  const path = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
  if (!out.success || path === "") {
    throw new Error(`Cannot build the metrics checker: bash ${script} metrics-check exited ${out.code}`);
  }
  return path;
}

/** The path of the metrics-check binary, building it once per process when nothing names one. */
export function metricsCheckBinary(): Promise<string> {
  const fromEnv = Deno.env.get("KUBELOOP_METRICS_CHECK");
  if (fromEnv) return Promise.resolve(fromEnv);
  const bin = Deno.env.get("KUBELOOP_TESTENV_BIN");
  if (bin) return Promise.resolve(join(bin, "metrics-check"));
  located ??= build();
  return located;
}

/** Pipes `text` into the metrics checker and returns its verdict. */
export async function checkMetrics(text: string): Promise<MetricsCheckResult> {
  const child = new Deno.Command(await metricsCheckBinary(), {
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, output: dec.decode(out.stdout) + dec.decode(out.stderr) };
}
