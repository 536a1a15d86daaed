import { formatLabels, formatValue, type Labels } from "./exposition.ts";

/** The kind of a metric, as written in `# TYPE`. */
export type MetricType = "counter" | "gauge" | "histogram";

/** Series storage and label checking shared by all metric kinds; `S` is the state of one series. */
export abstract class Metric<S> {
  /** The metric name. */
  readonly name: string;
  /** The `# HELP` text. */
  readonly help: string;
  /** Label names every series must set, in the order they are written. */
  readonly labelNames: readonly string[];
  /** The metric kind. */
  abstract readonly type: MetricType;
  #series = new Map<string, { values: string[]; state: S }>();

  /** Use the {@link MetricsRegistry} methods instead. */
  constructor(name: string, help: string, labelNames: readonly string[]) {
    this.name = name;
    this.help = help;
    this.labelNames = Object.freeze([...labelNames]);
  }

  /** The state of a new series. */
  protected abstract initial(): S;

  /** The state of the series for `labels`, created on first use. */
  protected series(labels: Labels | undefined): S {
    const values = this.#values(labels ?? {});
    const key = JSON.stringify(values);
    let entry = this.#series.get(key);
    if (!entry) {
      entry = { values, state: this.initial() };
      this.#series.set(key, entry);
    }
    return entry.state;
  }

  /** Every series; an unlabelled metric always has its one series, so it renders 0 from the start. */
  protected entries(): { labels: string; state: S }[] {
    if (this.labelNames.length === 0) this.series({});
    return [...this.#series.values()].map(({ values, state }) => ({
      labels: formatLabels(this.labelNames, values),
      state,
    }));
  }

  /** The sample lines of the metric (without HELP and TYPE). */
  abstract samples(): string[];

  #values(labels: Labels): string[] {
    const keys = Object.keys(labels);
    const ok = keys.length === this.labelNames.length &&
      this.labelNames.every((name) => typeof labels[name] === "string");
    if (!ok) {
      throw new TypeError(
        `Invalid labels {${keys.join(", ")}} for metric "${this.name}": expected {${
          this.labelNames.join(", ")
        }}`,
      );
    }
    return this.labelNames.map((name) => labels[name]!);
  }
}

function split(
  metric: string,
  a: Labels | number | undefined,
  b: number | undefined,
  fallback?: number,
): [Labels | undefined, number] {
  const [labels, value] = typeof a === "number" ? [undefined, a] : [a, b ?? fallback];
  if (typeof value !== "number") throw new TypeError(`Cannot update metric "${metric}": no value given`);
  return [labels, value];
}

/** A value that only goes up (requests, retries). Name it `..._total`. */
export class Counter extends Metric<{ value: number }> {
  /** Always "counter". */
  readonly type = "counter";
  /** A new series starts at 0. */
  protected initial(): { value: number } {
    return { value: 0 };
  }
  /** Adds `value` (default 1) to the series of `labels`; a negative value is a RangeError. */
  inc(labels?: Labels | number, value?: number): void {
    const [l, v] = split(this.name, labels, value, 1);
    if (!(v >= 0)) throw new RangeError(`Cannot add ${v} to counter "${this.name}": counters only go up`);
    this.series(l).value += v;
  }
  /** The current value of the series of `labels`. */
  get(labels?: Labels): number {
    return this.series(labels).value;
  }
  /** The sample lines. */
  samples(): string[] {
    return this.entries().map(({ labels, state }) => `${this.name}${labels} ${formatValue(state.value)}`);
  }
}

/** A value that goes up and down, or is read from a callback when collected. */
export class Gauge extends Metric<{ value: number; collect?: () => number }> {
  /** Always "gauge". */
  readonly type = "gauge";
  /** A new series starts at 0. */
  protected initial(): { value: number } {
    return { value: 0 };
  }
  /** Sets the series of `labels` (omit them for an unlabelled gauge) to `value`. */
  set(labels: Labels | number, value?: number): void {
    const [l, v] = split(this.name, labels, value);
    const state = this.series(l);
    delete state.collect;
    state.value = v;
  }
  /** Adds `value` (default 1). */
  inc(labels?: Labels | number, value?: number): void {
    const [l, v] = split(this.name, labels, value, 1);
    this.series(l).value += v;
  }
  /** Subtracts `value` (default 1). */
  dec(labels?: Labels | number, value?: number): void {
    const [l, v] = split(this.name, labels, value, 1);
    this.series(l).value -= v;
  }
  /**
   * Makes the series of `labels` read `collect()` each time the registry renders, e.g. a queue's
   * depth. A later `set` replaces the callback.
   */
  setFunction(labels: Labels | (() => number), collect?: () => number): void {
    const [l, fn] = typeof labels === "function" ? [undefined, labels] : [labels, collect];
    if (!fn) throw new TypeError(`Cannot set a callback on gauge "${this.name}": no function given`);
    this.series(l).collect = fn;
  }
  /** The current value of the series of `labels` (calling its callback, if any). */
  get(labels?: Labels): number {
    const state = this.series(labels);
    return state.collect ? state.collect() : state.value;
  }
  /** The sample lines, evaluating callbacks. */
  samples(): string[] {
    return this.entries().map(({ labels, state }) =>
      `${this.name}${labels} ${formatValue(state.collect ? state.collect() : state.value)}`
    );
  }
}

/** The state of one histogram series: per-bucket (not cumulative) counts, sum and count. */
export interface HistogramState {
  /** Observations per bucket, the last one being +Inf. */
  counts: number[];
  /** Sum of all observations. */
  sum: number;
  /** Number of observations. */
  count: number;
}

/** Observations (durations, sizes) counted into cumulative buckets, with their sum and count. */
export class Histogram extends Metric<HistogramState> {
  /** Always "histogram". */
  readonly type = "histogram";
  /** Upper bounds of the buckets, without the implied +Inf. */
  readonly buckets: readonly number[];

  /** Use {@link MetricsRegistry.histogram} instead. */
  constructor(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(name, help, labelNames);
    this.buckets = Object.freeze([...buckets]);
  }
  /** A new series has empty buckets. */
  protected initial(): HistogramState {
    return { counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
  }
  /** Records `value` in the series of `labels` (omit them for an unlabelled histogram). */
  observe(labels: Labels | number, value?: number): void {
    const [l, v] = split(this.name, labels, value);
    const state = this.series(l);
    let i = 0;
    while (i < this.buckets.length && !(v <= this.buckets[i]!)) i++;
    state.counts[i]!++;
    state.sum += v;
    state.count++;
  }
  /** Count and sum of the series of `labels`. */
  get(labels?: Labels): { count: number; sum: number } {
    const { count, sum } = this.series(labels);
    return { count, sum };
  }
  /** The sample lines: cumulative `_bucket` lines up to `+Inf`, then `_sum` and `_count`. */
  samples(): string[] {
    const lines: string[] = [];
    for (const { labels, state } of this.entries()) {
      const inner = labels.slice(1, -1);
      const withLe = (le: string) => `{${inner}${inner ? "," : ""}le="${le}"}`;
      let cumulative = 0;
      state.counts.forEach((n, i) => {
        cumulative += n;
        const bound = this.buckets[i];
        const le = bound === undefined ? "+Inf" : formatValue(bound);
        lines.push(`${this.name}_bucket${withLe(le)} ${cumulative}`);
      });
      lines.push(`${this.name}_sum${labels} ${formatValue(state.sum)}`);
      lines.push(`${this.name}_count${labels} ${state.count}`);
    }
    return lines;
  }
}
