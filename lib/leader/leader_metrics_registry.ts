import type { MetricsRegistry } from "../metrics/registry.ts";
import type { LeaderMetrics } from "./elector_options.ts";

/** Drives `leader_election_master_status{name}` (1 while leading) for a LeaderElector's `metrics`. */
export function leaderMetricsFor(
  registry: MetricsRegistry,
): LeaderMetrics {
  const gauge = registry.gauge(
    "leader_election_master_status",
    "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.",
    ["name"],
  );
  return { setLeading: (name, leading) => gauge.set({ name }, leading ? 1 : 0) };
}
