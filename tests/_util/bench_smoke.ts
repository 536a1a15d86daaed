/**
 * Smoke runs of the benches (tests/bench/, tests/integration/bench_*): a bench runs as a subprocess at a tiny
 * size, exactly as its doc comment tells a person to run it, and the test checks that it exited 0 and printed
 * its result table with numbers in it. They prove that a bench still starts and measures, not what it
 * measures.
 * @module
 */
import assert from "node:assert/strict";
import { newLogPath } from "./test_logs.ts";

const root = new URL("../../", import.meta.url).pathname;

/** What one bench run printed. */
export interface BenchRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time of the run, in seconds. */
  readonly seconds: number;
}

/** Options of {@linkcode runBench}. */
export interface RunBenchOptions {
  /** Added to the environment (which is inherited). */
  readonly env?: Readonly<Record<string, string>>;
  /** The run is killed after this long. @default {240_000} */
  readonly timeoutMs?: number;
}

/** The Deno binary running the tests (`./denow`'s), so benches run on the pinned version. */
export const deno: string = Deno.execPath();

/**
 * Runs `command args` in the repository root with colours off; with log collection on (tests/run.sh), the
 * output is kept for the run's credential scan. Resolves when it exited, whatever its code.
 */
export async function runBench(
  command: string,
  args: readonly string[],
  options: RunBenchOptions = {},
): Promise<BenchRun> {
  const started = performance.now();
  const out = await new Deno.Command(command, {
    args: [...args],
    cwd: root,
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(options.timeoutMs ?? 240_000),
  }).output();
  const dec = new TextDecoder();
  const run = {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
    seconds: (performance.now() - started) / 1000,
  };
  const log = newLogPath(`bench-${args.find((a) => a.startsWith("bench/")) ?? command}`);
  if (log) await Deno.writeTextFile(log, run.stdout + run.stderr, { mode: 0o600 });
  return run;
}

/** Asserts that the run exited 0, quoting the end of its output otherwise. */
export function assertExitedCleanly(run: BenchRun): void {
  assert.equal(
    run.code,
    0,
    `the bench exited ${run.code}:\n--- stdout\n${run.stdout.slice(-3000)}\n--- stderr\n${
      run.stderr.slice(-3000)
    }`,
  );
}

/** Escapes `text` for a RegExp. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Asserts that `deno bench` exited 0 and printed a row with a time per iteration for each bench case whose
 * name starts with one of `names` (its table: `| name | 1.2 ms | ...`); returns those rows.
 */
export function assertBenchRows(run: BenchRun, names: readonly string[]): string[] {
  assertExitedCleanly(run);
  return names.map((name) => {
    const row = new RegExp(`^\\| ${literal(name)}[^|]*\\| +[\\d.,]+ (ns|µs|ms|s) +\\|`, "m").exec(run.stdout);
    assert.ok(row, `no timing row for "${name}" in:\n${run.stdout.slice(-4000)}`);
    return row[0];
  });
}

/**
 * Asserts that `stdout` holds a Markdown table whose header row starts with `header` (cells as printed,
 * e.g. "| program | time-to-synced (ms) |") and, below its separator, one row starting with each of `rows`
 * ("| kubeloop |"); every cell of those rows after the first `labels` (1: the row's name) must hold a number
 * (no NaN, no empty cell). Returns the rows' cells.
 */
export function assertTable(
  stdout: string,
  header: string,
  rows: readonly string[],
  labels = 1,
): string[][] {
  const lines = stdout.split("\n");
  const at = lines.findIndex((l) => l.startsWith(header));
  assert.ok(at >= 0, `no table with the header "${header}" in:\n${stdout.slice(-4000)}`);
  assert.match(lines[at + 1] ?? "", /^\|[-:| ]+\|$/, `no separator row below "${header}"`);
  const body: string[] = [];
  for (let i = at + 2; i < lines.length && lines[i]!.startsWith("|"); i++) body.push(lines[i]!);
  return rows.map((start) => {
    const row = body.find((l) => l.startsWith(start));
    assert.ok(row, `no row "${start}" in the table "${header}":\n${body.join("\n")}`);
    const cells = row.split("|").slice(1, -1).map((c) => c.trim());
    for (const cell of cells.slice(labels)) {
      assert.match(cell, /\d/, `a cell without a number in "${row}"`);
      assert.doesNotMatch(cell, /NaN|Infinity/, `a cell without a measurement in "${row}"`);
    }
    return cells;
  });
}
