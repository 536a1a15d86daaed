/** Plain-text summary of a scenario result, as quoted in docs/reliability.md. */
import { total } from "./_controller_metrics.ts";
import type { ScenarioResult } from "./_scenario.ts";

const s = (ms: number) => Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : "n/a";
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** Lines describing `r`. */
export function summarize(r: ScenarioResult): string[] {
  const faults = Object.entries(r.proxy.faults).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`);
  const c = r.controller;
  const lines = [
    `scenario ${r.name} (seed ${r.seed}): ${r.foos} Foos, churn ${
      s(r.churnMs)
    }: created ${r.churn.created}, ` +
    `scaled ${r.churn.scaled}, deleted ${r.churn.deleted}, failed writes ${r.churn.failed}`,
    `  faults injected: ${faults.length > 0 ? faults.join(", ") : "none"} (total ${
      Object.values(r.proxy.faults).reduce((a, b) => a + b, 0)
    }); proxy connections ${r.proxy.connections}, refused ${r.proxy.refused}`,
    `  controller: watch requests ${total(c.watchRequests)} (${fmt(c.watchRequests)}), watch errors ${
      total(c.watchErrors)
    }, relists ${total(c.relists)} (${fmt(c.relists)})`,
    `  requests ${c.requests} (no answer ${c.requestsWithoutAnswer}, 5xx ${c.serverErrors}); reconciles ${c.reconciles}, ` +
    `errors ${c.reconcileErrors}; workqueue depth at the end ${c.queueDepth}`,
  ];
  if (r.outage && r.whileDown) {
    const d = r.whileDown;
    lines.push(
      `  outage: down ${s(r.outage.downMs)}, restart to ready ${s(r.outage.restartToReadyMs)}; while down ${
        (d.requests / d.seconds).toFixed(1)
      } requests/s (${d.requests} in ${d.seconds.toFixed(1)} s: ${
        fmt(d.requestsByMethod)
      }), refused connections ${d.refusedConnections}`,
    );
  }
  if (r.blackhole) {
    lines.push(
      `  blackhole: ${r.blackhole.links} connections dead, never healed; dead watches given up with an error after ${
        r.blackhole.watchesReplacedAfterMs.map((ms) => s(ms)).join(", ") || "none"
      }; first event after it: ${
        Object.entries(r.blackhole.blindMs).map(([resource, ms]) => `${resource} ${s(ms)}`).join(", ") ||
        "none"
      }`,
    );
  }
  lines.push(
    `  convergence of ${r.liveFoos} live Foos (${r.touched} scaled when the faults ended): p50 ${
      s(r.convergeP50Ms)
    }, p95 ${s(r.convergeP95Ms)}, max ${s(r.convergeMaxMs)}; garbage collected after ${
      s(r.gcMs)
    }; converged: ${r.converged}`,
    `  slowest: ${
      r.slowest.map((f) => `${f.name} ${s(f.ms)} (${f.lastProblem || "right at once"})`).join("; ")
    }`,
    `  RSS: ${r.rss.samples} samples, after 1 min ${mb(r.rss.baselineBytes)}, max ${
      mb(r.rss.maxBytes)
    }, last ${mb(r.rss.lastBytes)}, max deviation ${(r.rss.maxDeviation * 100).toFixed(1)} %, trend ${
      Number.isFinite(r.rss.slopeBytesPerMinute)
        ? `${(r.rss.slopeBytesPerMinute / 2 ** 20).toFixed(2)} MiB/min`
        : "n/a"
    }`,
    ...(r.heap
      ? [
        `  JS heap used: after 1 min ${mb(r.heap.baselineBytes)}, max ${mb(r.heap.maxBytes)}, last ${
          mb(r.heap.lastBytes)
        }, trend ${(r.heap.slopeBytesPerMinute / 2 ** 20).toFixed(2)} MiB/min`,
      ]
      : []),
    ...(r.outsideHeap
      ? [
        `  RSS outside the V8 heap (RSS - heapTotal): after 1 min ${mb(r.outsideHeap.baselineBytes)}, min ${
          mb(r.outsideHeap.minBytes)
        }, max ${mb(r.outsideHeap.maxBytes)}, last ${mb(r.outsideHeap.lastBytes)}, trend ${
          (r.outsideHeap.slopeBytesPerMinute / 2 ** 20).toFixed(2)
        } MiB/min`,
      ]
      : []),
    `  process: crashed ${r.crashed}, exit code ${r.exitCode}, non-log output lines ${r.foreignOutput.length}`,
  );
  return lines;
}

function fmt(record: Record<string, number>): string {
  return Object.entries(record).map(([k, v]) => `${k.split("/").at(-1)} ${v}`).join(", ");
}
