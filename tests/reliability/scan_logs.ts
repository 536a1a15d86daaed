/**
 * The run's last gate: no credential the tests created appears in any log they captured.
 *
 *   deno run --allow-read tests/reliability/scan_logs.ts <root> [--min-secrets=N]
 *
 * `<root>` is the directory of KUBELOOP_TEST_LOGS (see tests/_util/test_logs.ts): every `*.log`
 * file under `<root>/logs` is searched for every credential in `<root>/secrets/registry.jsonl`.
 * Exit 0: clean; 1: at least one credential found (each hit printed as file:line and the
 * credential's label, never its value); 2: bad usage, unreadable registry, or fewer registered
 * credentials than `--min-secrets` (a scan that looks for nothing proves nothing).
 * @module
 */
import { join, relative } from "node:path";
import { type Finding, lineOf, NeedleIndex, needlesOf, type Secret } from "../_util/secret_scan.ts";
import { print, printErr } from "../_util/print.ts";
import { registryPath } from "../_util/test_logs.ts";

/** What a scan found and covered. */
export interface ScanReport {
  readonly secrets: number;
  readonly needles: number;
  readonly files: number;
  readonly bytes: number;
  readonly findings: Finding[];
}

/** Reads the registry of `root` (no file: no secrets). */
export async function readRegistry(root: string): Promise<Secret[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(registryPath(root));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const secrets: Secret[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const entry = JSON.parse(line) as Partial<Secret>;
    if (typeof entry.label !== "string" || typeof entry.value !== "string") {
      throw new SyntaxError(`${registryPath(root)}:${i + 1}: expected {"label", "value"} strings`);
    }
    secrets.push({ label: entry.label, value: entry.value });
  }
  return secrets;
}

async function* logFiles(dir: string): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, e.name);
    if (e.isDirectory) yield* logFiles(path);
    else if (e.isFile && e.name.endsWith(".log")) yield path;
  }
}

/** Scans every log under `<root>/logs` for every registered credential. */
export async function scanLogs(root: string): Promise<ScanReport> {
  const secrets = await readRegistry(root);
  const index = new NeedleIndex(secrets.flatMap(needlesOf));
  const findings: Finding[] = [];
  let files = 0;
  let bytes = 0;
  const logs = join(root, "logs");
  for await (const path of logFiles(logs)) {
    const data = await Deno.readFile(path);
    files++;
    bytes += data.length;
    const text = new TextDecoder().decode(data);
    for (const hit of index.search(text)) {
      findings.push({ file: relative(root, path), line: lineOf(text, hit.offset), label: hit.label });
    }
  }
  return { secrets: secrets.length, needles: index.size, files, bytes, findings };
}

async function main(args: string[]): Promise<number> {
  const root = args.find((a) => !a.startsWith("--"));
  const min = Number(
    /^--min-secrets=(\d+)$/.exec(args.find((a) => a.startsWith("--min-secrets=")) ?? "")?.[1] ?? 0,
  );
  if (!root) {
    printErr("usage: scan_logs.ts <root> [--min-secrets=N]");
    return 2;
  }
  let report: ScanReport;
  try {
    report = await scanLogs(root);
  } catch (error) {
    printErr(`Cannot scan ${root}: ${error instanceof Error ? error.message : error}`);
    return 2;
  }
  const mb = (report.bytes / 1e6).toFixed(1);
  print(
    `credential scan: ${report.files} log files (${mb} MB) searched for ${report.secrets} credentials ` +
      `(${report.needles} needles)`,
  );
  if (report.secrets < min) {
    printErr(`credential scan: only ${report.secrets} credentials registered, expected at least ${min}`);
    return 2;
  }
  for (const f of report.findings) printErr(`LEAK: ${f.file}:${f.line}: ${f.label}`);
  if (report.findings.length > 0) {
    printErr(`credential scan: ${report.findings.length} leak(s) found`);
    return 1;
  }
  print("credential scan: no credential found in any log");
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
