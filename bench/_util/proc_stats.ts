/**
 * Reads a process' CPU time and memory from /proc (Linux): what the benches report for processes
 * they start, and for the API server next to them.
 */

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`, 100 on Linux/x86-64). */
const TICKS_PER_SECOND = 100;

/** CPU time a process has used so far, user and system, in milliseconds. */
export interface CpuTime {
  readonly userMs: number;
  readonly sysMs: number;
}

/** The process' user and system CPU time (fields 14 and 15 of /proc/<pid>/stat). */
export function cpuTime(pid: number): CpuTime {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // The command name (field 2) may hold spaces and parentheses: split after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = (i: number) => Number(fields[i - 3]);
  return { userMs: (ticks(14) * 1000) / TICKS_PER_SECOND, sysMs: (ticks(15) * 1000) / TICKS_PER_SECOND };
}

/** User + system CPU milliseconds between two readings. */
export function cpuMsBetween(before: CpuTime, after: CpuTime): number {
  return after.userMs - before.userMs + after.sysMs - before.sysMs;
}

/** Resident set now, its peak so far, and its anonymous and file-backed parts (VmRSS, VmHWM, RssAnon, RssFile), in bytes. */
export interface Memory {
  readonly rss: number;
  readonly peakRss: number;
  /** Heap, stacks and other private memory. */
  readonly anon: number;
  /** Pages of the executable and other mapped files (shared, reclaimable). */
  readonly file: number;
}

/** The process' resident set size and its high-water mark. */
export function memory(pid: number): Memory {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kib = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? NaN);
  return {
    rss: kib("VmRSS") * 1024,
    peakRss: kib("VmHWM") * 1024,
    anon: kib("RssAnon") * 1024,
    file: kib("RssFile") * 1024,
  };
}

/** The pids of `parent`'s direct children whose command name is `name`. */
export function childrenNamed(parent: number, name: string): number[] {
  const out: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent && comm === name.slice(0, 15)) out.push(Number(entry.name));
    } catch {
      // The process exited while we looked.
    }
  }
  return out;
}
