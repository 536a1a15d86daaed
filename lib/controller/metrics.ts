import type { MetricsRegistry } from "../metrics/registry.ts";

/** How one reconcile ended, the `result` label of `controller_runtime_reconcile_total`. */
export type ReconcileResult = "success" | "error" | "requeue" | "requeue_after";

/** Hooks a controller calls; {@linkcode controllerMetricsFor} implements them with Prometheus metrics. */
export interface ControllerMetrics {
  /** One reconcile finished after `seconds`. */
  reconciled(result: ReconcileResult, seconds: number): void;
  /** A reconcile was aborted by its timeout. */
  timedOut(): void;
  /** Workers currently reconciling. */
  activeWorkers(count: number): void;
  /** The configured worker count. */
  maxConcurrentReconciles(count: number): void;
  /** Primary objects terminating longer than `stuckTerminatingAfterMs` with finalizers left. */
  stuckTerminating?(count: number): void;
}

/** Hooks that do nothing; the default. */
export const noopControllerMetrics: ControllerMetrics = {
  reconciled() {},
  timedOut() {},
  activeWorkers() {},
  maxConcurrentReconciles() {},
};

/** controller-runtime's reconcile metrics for the controller `name`, registered in `registry`. */
export function controllerMetricsFor(registry: MetricsRegistry, name: string): ControllerMetrics {
  const labels = { controller: name };
  const total = registry.counter(
    "controller_runtime_reconcile_total",
    "Total number of reconciliations per controller",
    ["controller", "result"],
  );
  const errors = registry.counter(
    "controller_runtime_reconcile_errors_total",
    "Total number of reconciliation errors per controller",
    ["controller"],
  );
  const timeouts = registry.counter(
    "controller_runtime_reconcile_timeouts_total",
    "Total number of reconciliation timeouts per controller",
    ["controller"],
  );
  const time = registry.histogram(
    "controller_runtime_reconcile_time_seconds",
    "Length of time per reconciliation per controller",
    {
      labelNames: ["controller"],
      buckets: [
        0.005,
        0.01,
        0.025,
        0.05,
        0.1,
        0.15,
        0.2,
        0.25,
        0.3,
        0.35,
        0.4,
        0.45,
        0.5,
        0.6,
        0.7,
        0.8,
        0.9,
        1,
        1.25,
        1.5,
        1.75,
        2,
        2.5,
        3,
        3.5,
        4,
        4.5,
        5,
        6,
        7,
        8,
        9,
        10,
        15,
        20,
        25,
        30,
        40,
        50,
        60,
      ],
    },
  );
  const active = registry.gauge(
    "controller_runtime_active_workers",
    "Number of currently used workers per controller",
    ["controller"],
  );
  const max = registry.gauge(
    "controller_runtime_max_concurrent_reconciles",
    "Maximum number of concurrent reconciles per controller",
    ["controller"],
  );
  const stuck = registry.gauge(
    "kubeloop_controller_stuck_terminating_objects",
    "Primary objects being deleted for longer than the controller's threshold while finalizers remain",
    ["controller"],
  );
  stuck.set(labels, 0);
  for (const result of ["success", "error", "requeue", "requeue_after"]) total.inc({ ...labels, result }, 0);
  errors.inc(labels, 0);
  timeouts.inc(labels, 0);
  return {
    reconciled(result, seconds) {
      total.inc({ ...labels, result });
      if (result === "error") errors.inc(labels);
      time.observe(labels, seconds);
    },
    timedOut: () => timeouts.inc(labels),
    activeWorkers: (count) => active.set(labels, count),
    maxConcurrentReconciles: (count) => max.set(labels, count),
    stuckTerminating: (count) => stuck.set(labels, count),
  };
}
