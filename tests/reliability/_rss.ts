/** Judging a series of resident-memory samples: level after warm-up, spread and trend. */

/** One sample. */
export interface RssSample {
  readonly at: number;
  readonly bytes: number;
}

/** The summary the soak checks. */
export interface RssTrend {
  readonly samples: number;
  /** The first sample at or after the warm-up (the reference). */
  readonly baselineBytes: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly lastBytes: number;
  /** Largest |sample - baseline| / baseline after the warm-up. */
  readonly maxDeviation: number;
  /** Least-squares slope after the warm-up, in bytes per minute (NaN with fewer than two samples). */
  readonly slopeBytesPerMinute: number;
}

/** Summarizes `samples` (in time order) taking the first `warmupMs` as warm-up. */
export function rssTrend(samples: readonly RssSample[], warmupMs: number): RssTrend {
  if (samples.length === 0) {
    return {
      samples: 0,
      baselineBytes: NaN,
      minBytes: NaN,
      maxBytes: NaN,
      lastBytes: NaN,
      maxDeviation: NaN,
      slopeBytesPerMinute: NaN,
    };
  }
  const start = samples[0]!.at;
  const after = samples.filter((s) => s.at - start >= warmupMs);
  const steady = after.length > 0 ? after : [samples.at(-1)!];
  const baseline = steady[0]!.bytes;
  const maxDeviation = Math.max(...steady.map((s) => Math.abs(s.bytes - baseline) / baseline));
  let slope = NaN;
  if (steady.length >= 2) {
    const xs = steady.map((s) => (s.at - steady[0]!.at) / 60_000);
    const ys = steady.map((s) => s.bytes);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = ys.reduce((a, b) => a + b, 0) / ys.length;
    let num = 0;
    let den = 0;
    for (let i = 0; i < xs.length; i++) {
      num += (xs[i]! - mx) * (ys[i]! - my);
      den += (xs[i]! - mx) ** 2;
    }
    slope = den === 0 ? NaN : num / den;
  }
  return {
    samples: samples.length,
    baselineBytes: baseline,
    minBytes: Math.min(...samples.map((s) => s.bytes)),
    maxBytes: Math.max(...samples.map((s) => s.bytes)),
    lastBytes: samples.at(-1)!.bytes,
    maxDeviation,
    slopeBytesPerMinute: slope,
  };
}
