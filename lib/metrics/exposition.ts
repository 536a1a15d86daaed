/** Label values of one series, by label name. */
export type Labels = Readonly<Record<string, string>>;

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Throws a TypeError unless `name` is a valid Prometheus metric name. */
export function checkMetricName(name: string): void {
  if (!METRIC_NAME.test(name)) {
    throw new TypeError(`Invalid metric name "${name}": expected [a-zA-Z_:][a-zA-Z0-9_:]*`);
  }
}

/** Throws a TypeError unless `names` are valid, distinct, non-reserved label names. */
export function checkLabelNames(metric: string, names: readonly string[], reserved: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (!LABEL_NAME.test(name) || name.startsWith("__") || reserved.includes(name)) {
      throw new TypeError(`Invalid label name "${name}" for metric "${metric}"`);
    }
    if (seen.has(name)) throw new TypeError(`Duplicate label name "${name}" for metric "${metric}"`);
    seen.add(name);
  }
}

/** A sample value as the text format writes it (`+Inf`, `-Inf`, `NaN`). */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/** Escapes HELP text: backslash and newline. */
export function escapeHelp(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
}

/** Escapes a label value: backslash, double quote and newline. */
export function escapeLabelValue(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

/** `{a="x",b="y"}` for the given names and values, or "" when there are none. */
export function formatLabels(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return "";
  const pairs = names.map((name, i) => `${name}="${escapeLabelValue(values[i] ?? "")}"`);
  return `{${pairs.join(",")}}`;
}

/** Prometheus' default histogram buckets, in seconds: 5 ms to 10 s. */
export const DEFAULT_BUCKETS: readonly number[] = Object.freeze([
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
]);

/** `count` buckets starting at `start`, each `factor` times the previous one. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  if (!(start > 0) || !(factor > 1) || !(count >= 1) || !Number.isInteger(count)) {
    throw new RangeError(
      `Cannot make exponential buckets from start ${start}, factor ${factor}, count ${count}: expected start > 0, factor > 1, integer count >= 1`,
    );
  }
  const buckets: number[] = [];
  for (let i = 0, bound = start; i < count; i++, bound *= factor) buckets.push(Number(bound.toPrecision(12)));
  return buckets;
}

/** Validates bucket bounds: finite, strictly increasing; a trailing +Inf is implied and removed. */
export function checkBuckets(metric: string, buckets: readonly number[]): number[] {
  const bounds = buckets.filter((b) => b !== Infinity);
  for (let i = 0; i < bounds.length; i++) {
    const bound = bounds[i]!;
    if (!Number.isFinite(bound) || (i > 0 && bound <= bounds[i - 1]!)) {
      throw new RangeError(
        `Invalid buckets [${
          buckets.join(", ")
        }] for histogram "${metric}": expected finite, strictly increasing bounds`,
      );
    }
  }
  return bounds;
}
