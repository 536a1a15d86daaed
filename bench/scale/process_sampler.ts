/**
 * Resident memory and CPU time of one process, read from Linux's /proc (VmRSS from `status`; utime + stime
 * from `stat`, in clock ticks of 1/100 s, the value of `getconf CLK_TCK` on Linux).
 * @module
 */

const TICKS_PER_SECOND = 100;

/** One reading. */
export interface ProcessSample {
  /** Resident set size in MiB. */
  rssMiB: number;
  /** CPU time used so far (user + system), in seconds. */
  cpuSeconds: number;
}

/** Reads /proc/<pid>; samples continuously during a burst for the peak. */
export class ProcessSampler {
  readonly #pid: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Samples process `pid`. */
  constructor(pid: number) {
    this.#pid = pid;
  }

  /** The process' current RSS and CPU time. */
  sample(): ProcessSample {
    const status = Deno.readTextFileSync(`/proc/${this.#pid}/status`);
    const rssKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN);
    // The command name in parentheses may hold spaces; the fields after it are space-separated.
    const stat = Deno.readTextFileSync(`/proc/${this.#pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat, i.e. 12 and 13 after the command name.
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { rssMiB: rssKiB / 1024, cpuSeconds: ticks / TICKS_PER_SECOND };
  }

  /** RSS at the end of a quiet window of `ms`, and the CPU used during it as a percentage of one core. */
  async idle(ms: number): Promise<{ rssMiB: number; cpuPercent: number }> {
    const start = this.sample();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, ms));
    const end = this.sample();
    const wall = (performance.now() - t0) / 1000;
    return { rssMiB: end.rssMiB, cpuPercent: (100 * (end.cpuSeconds - start.cpuSeconds)) / wall };
  }

  /** Samples every 100 ms until `stop()`, which returns the peak RSS and the CPU used meanwhile. */
  startBurst(): { stop(): { peakRssMiB: number; cpuSeconds: number; cpuPercent: number } } {
    const start = this.sample();
    const t0 = performance.now();
    let peak = start.rssMiB;
    this.#timer = setInterval(() => {
      peak = Math.max(peak, this.sample().rssMiB);
    }, 100);
    return {
      stop: () => {
        this.close();
        const end = this.sample();
        const wall = (performance.now() - t0) / 1000;
        const cpuSeconds = end.cpuSeconds - start.cpuSeconds;
        return { peakRssMiB: Math.max(peak, end.rssMiB), cpuSeconds, cpuPercent: (100 * cpuSeconds) / wall };
      },
    };
  }

  /** Stops any burst sampling. */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
