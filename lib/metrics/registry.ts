import { checkBuckets, checkLabelNames, checkMetricName, DEFAULT_BUCKETS, escapeHelp } from "./exposition.ts";
import { Counter, Gauge, Histogram, type MetricType } from "./metric_types.ts";

/** Options of {@link MetricsRegistry.counter} and {@link MetricsRegistry.gauge}. */
export interface MetricOptions {
  /**
   * Names of the labels every series sets.
   * @default {[]}
   */
  labelNames?: readonly string[];
}

/** Options of {@link MetricsRegistry.histogram}. */
export interface HistogramOptions extends MetricOptions {
  /**
   * Bucket upper bounds; `+Inf` is always added.
   * @default {DEFAULT_BUCKETS (0.005 .. 10)}
   */
  buckets?: readonly number[];
}

type AnyMetric = Counter | Gauge | Histogram;

/**
 * Holds the process' metrics and renders them in the Prometheus text exposition format 0.0.4.
 * Registering a name again returns the existing metric when its type, label names (and buckets)
 * match, so independent components can share one; otherwise it is a TypeError. The third argument
 * may be the label names alone.
 *
 * @example Count, measure and render in the Prometheus text format
 * ```ts
 * import assert from "node:assert/strict";
 * import { MetricsRegistry } from "@kubeloop/kubeloop";
 *
 * const registry = new MetricsRegistry(); // or the Manager's `registry`, which it serves at /metrics
 * const synced = registry.counter("widgets_synced_total", "Widgets brought in line.", ["result"]);
 * synced.inc({ result: "ok" });
 * synced.inc({ result: "ok" });
 * registry.gauge("widgets_cached", "Widgets in the cache.").set(3);
 * const text = registry.render();
 * assert.match(text, /^widgets_synced_total\{result="ok"\} 2$/m);
 * assert.match(text, /^widgets_cached 3$/m);
 * ```
 */
export class MetricsRegistry {
  #metrics = new Map<string, AnyMetric>();

  /** A counter; `options` may be the label names alone. */
  counter(name: string, help: string, options?: MetricOptions | readonly string[]): Counter {
    const labelNames = labelNamesOf(options);
    return this.#register("counter", name, labelNames, [], () => new Counter(name, help, labelNames));
  }

  /** A gauge; `options` may be the label names alone. */
  gauge(name: string, help: string, options?: MetricOptions | readonly string[]): Gauge {
    const labelNames = labelNamesOf(options);
    return this.#register("gauge", name, labelNames, [], () => new Gauge(name, help, labelNames));
  }

  /** A histogram; `options` may be the label names alone (then the default buckets are used). */
  histogram(name: string, help: string, options?: HistogramOptions | readonly string[]): Histogram {
    const labelNames = labelNamesOf(options);
    const given = isNames(options) ? undefined : options?.buckets;
    const buckets = checkBuckets(name, given ?? DEFAULT_BUCKETS);
    return this.#register("histogram", name, labelNames, buckets, () => {
      return new Histogram(name, help, labelNames, buckets);
    });
  }

  /** The metric registered under `name`, if any. */
  get(name: string): Counter | Gauge | Histogram | undefined {
    return this.#metrics.get(name);
  }

  /** All metrics in the text exposition format 0.0.4, sorted by name, ending with a newline. */
  render(): string {
    const lines: string[] = [];
    const names = [...this.#metrics.keys()].sort();
    for (const name of names) {
      const metric = this.#metrics.get(name)!;
      lines.push(`# HELP ${name} ${escapeHelp(metric.help)}`, `# TYPE ${name} ${metric.type}`);
      lines.push(...metric.samples());
    }
    return lines.length === 0 ? "" : lines.join("\n") + "\n";
  }

  #register<M extends AnyMetric>(
    type: MetricType,
    name: string,
    labelNames: readonly string[],
    buckets: readonly number[],
    create: () => M,
  ): M {
    checkMetricName(name);
    checkLabelNames(name, labelNames, type === "histogram" ? ["le"] : []);
    const existing = this.#metrics.get(name);
    if (!existing) {
      const metric = create();
      this.#metrics.set(name, metric);
      return metric;
    }
    const sameBuckets = existing.type !== "histogram" || sameList(existing.buckets, buckets);
    if (existing.type !== type || !sameList(existing.labelNames, labelNames) || !sameBuckets) {
      throw new TypeError(
        `Cannot register ${type} "${name}" with labels [${labelNames.join(", ")}]: ` +
          `already registered as a ${existing.type} with labels [${existing.labelNames.join(", ")}]` +
          (sameBuckets ? "" : " and other buckets"),
      );
    }
    return existing as M;
  }
}

function isNames(options: MetricOptions | readonly string[] | undefined): options is readonly string[] {
  return Array.isArray(options);
}

function labelNamesOf(options: MetricOptions | readonly string[] | undefined): readonly string[] {
  return isNames(options) ? options : options?.labelNames ?? [];
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
