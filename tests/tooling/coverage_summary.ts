/**
 * Per-folder line and branch coverage of lib/ from an lcov report (`deno coverage --lcov`), for
 * `deno task coverage`:
 *
 *   deno run --allow-read tests/tooling/coverage_summary.ts coverage/lcov.info [--min-lines=90]
 *
 * Prints one row per folder of lib/ (lib/*.ts files count as "lib/") and a total; exits 1 when a folder's
 * line coverage is below `--min-lines`.
 * @module
 */

/** Covered and total counts of one file or folder. */
export interface CoverageCounts {
  /** Lines with at least one hit. */
  linesHit: number;
  /** Executable lines. */
  lines: number;
  /** Branches taken at least once. */
  branchesHit: number;
  /** Branches. */
  branches: number;
}

/** Sums an lcov report per folder of `lib/` (keys like "lib/http"); files outside lib/ are left out. */
export function coverageByFolder(lcov: string, root: string): Map<string, CoverageCounts> {
  const folders = new Map<string, CoverageCounts>();
  let current: CoverageCounts | undefined;
  const prefix = root.endsWith("/") ? root : `${root}/`;
  for (const raw of lcov.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("SF:")) {
      const path = line.slice(3);
      const relative = path.startsWith(prefix) ? path.slice(prefix.length) : path;
      const match = /^lib\/(?:([^/]+)\/)?[^/]+$/.exec(relative) ?? /^lib\/([^/]+)\//.exec(relative);
      if (!match) {
        current = undefined;
        continue;
      }
      const folder = match[1] === undefined ? "lib" : `lib/${match[1]}`;
      current = folders.get(folder);
      if (!current) {
        current = { linesHit: 0, lines: 0, branchesHit: 0, branches: 0 };
        folders.set(folder, current);
      }
    } else if (current && line.startsWith("DA:")) {
      const hits = Number(line.slice(3).split(",")[1]);
      current.lines++;
      if (hits > 0) current.linesHit++;
    } else if (current && line.startsWith("BRDA:")) {
      const taken = line.slice(5).split(",")[3];
      current.branches++;
      if (taken !== undefined && taken !== "-" && Number(taken) > 0) current.branchesHit++;
    } else if (line === "end_of_record") {
      current = undefined;
    }
  }
  return new Map([...folders].sort(([a], [b]) => a.localeCompare(b)));
}

/** A percentage with one decimal, or "n/a" when there is nothing to cover. */
export function percent(hit: number, total: number): string {
  return total === 0 ? "n/a" : `${(Math.floor((hit / total) * 1000) / 10).toFixed(1)} %`;
}

/** The table `deno task coverage` prints, and the folders below `minLines` (a percentage). */
export function coverageTable(
  folders: Map<string, CoverageCounts>,
  minLines: number,
): { text: string; below: string[] } {
  const total: CoverageCounts = { linesHit: 0, lines: 0, branchesHit: 0, branches: 0 };
  const rows: string[][] = [["folder", "lines", "", "branches", ""]];
  const below: string[] = [];
  for (const [folder, c] of folders) {
    total.linesHit += c.linesHit;
    total.lines += c.lines;
    total.branchesHit += c.branchesHit;
    total.branches += c.branches;
    const low = c.lines > 0 && (c.linesHit / c.lines) * 100 < minLines;
    if (low) below.push(folder);
    rows.push([
      folder + (low ? " *" : ""),
      percent(c.linesHit, c.lines),
      `${c.linesHit}/${c.lines}`,
      percent(c.branchesHit, c.branches),
      `${c.branchesHit}/${c.branches}`,
    ]);
  }
  rows.push([
    "lib/ (all)",
    percent(total.linesHit, total.lines),
    `${total.linesHit}/${total.lines}`,
    percent(total.branchesHit, total.branches),
    `${total.branchesHit}/${total.branches}`,
  ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const text = rows.map((r) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ").trimEnd()
  ).join("\n");
  return { text, below };
}

if (import.meta.main) {
  const [path, ...flags] = Deno.args;
  if (!path) {
    Deno.stderr.writeSync(
      new TextEncoder().encode("usage: coverage_summary.ts LCOV_FILE [--min-lines=90]\n"),
    );
    Deno.exit(2);
  }
  const min = Number(flags.find((f) => f.startsWith("--min-lines="))?.slice("--min-lines=".length) ?? "90");
  const root = new URL("../../", import.meta.url).pathname;
  const { text, below } = coverageTable(coverageByFolder(await Deno.readTextFile(path), root), min);
  const out = [
    `Coverage of lib/ by folder (lines, branches); * marks a folder below ${min} % of lines:`,
    text,
  ];
  if (below.length > 0) out.push(`below ${min} % of lines: ${below.join(", ")}`);
  Deno.stdout.writeSync(new TextEncoder().encode(out.join("\n") + "\n"));
  if (below.length > 0) Deno.exit(1);
}
