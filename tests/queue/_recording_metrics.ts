import type { InFlightStats, QueueMetrics } from "../../lib/queue/queue_metrics.ts";

/** What the recording metrics saw. */
export interface Recorded {
  depth: number[];
  adds: number;
  latency: number[];
  work: number[];
  retries: number;
  probe: (() => InFlightStats) | undefined;
}

/** Records every hook call so tests can check the values. */
export function recordingMetrics(): QueueMetrics & { recorded: Recorded } {
  const recorded: Recorded = { depth: [], adds: 0, latency: [], work: [], retries: 0, probe: undefined };
  return {
    recorded,
    depth: (n) => void recorded.depth.push(n),
    added: () => void recorded.adds++,
    queueLatency: (s) => void recorded.latency.push(s),
    workDuration: (s) => void recorded.work.push(s),
    retried: () => void recorded.retries++,
    trackInFlight: (probe) => void (recorded.probe = probe),
  };
}
