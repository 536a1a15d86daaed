/**
 * The disruptions a scenario can inflict in the middle of its churn, and what is measured while they
 * last: a SIGKILLed kube-apiserver, an etcd outage, or every connection of the controller going
 * dead without closing (a blackhole nobody heals: the controller has to notice by itself).
 */
import type { FaultProxy } from "../_util/fault_proxy.ts";
import { killApiserver, startApiserver, startEtcd, stopEtcd } from "../_util/control_plane_faults.ts";
import type { ControllerProcess } from "../e2e/controller_process.ts";
import { sampleSum } from "../integration/_metrics.ts";
import { type ControllerFigures, delta, readFigures, RESOURCES } from "./_controller_metrics.ts";

/** A disruption in the middle of the churn. */
export interface Disruption {
  readonly kind: "apiserver-kill" | "etcd-outage" | "blackhole";
  /** When it starts, after the churn started. */
  readonly atMs: number;
  /** How long the component stays down (the blackhole: how long the churn goes on after it). */
  readonly downMs: number;
}

/** Controller counters while the component was down. */
export type DownFigures = ControllerFigures & {
  readonly seconds: number;
  readonly refusedConnections: number;
};

/** ms from the kill/stop to the restart, and from the restart to kube-apiserver's /readyz. */
export interface OutageFigures {
  readonly downMs: number;
  readonly restartToReadyMs: number;
}

/** When, after the blackhole, the controller gave up each dead watch (from its log). */
export interface BlackholeFigures {
  readonly links: number;
  /** ms after the blackhole of each dead watch the controller gave up with an error (log lines). */
  readonly watchesReplacedAfterMs: number[];
  /**
   * Per informer resource, ms from the blackhole to the first watch event (bookmarks included) the
   * informer received after it, from its last-event gauge polled each second; missing: none arrived.
   */
  readonly blindMs: Record<string, number>;
}

/** What the disruption left to measure: `t0` is when convergence is timed from. */
export interface DisruptionOutcome {
  readonly t0: number;
  readonly whileDown?: DownFigures;
  readonly outage?: OutageFigures;
  readonly blackhole?: BlackholeFigures;
}

interface Context {
  readonly proxy: FaultProxy;
  readonly controller: ControllerProcess;
  readonly started: number;
  readonly log: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits `d.atMs`, inflicts `d`, and returns once it is over. */
export async function disrupt(d: Disruption, ctx: Context): Promise<DisruptionOutcome> {
  const { proxy, controller, log } = ctx;
  await sleep(d.atMs);
  if (d.kind === "blackhole") {
    const at = Date.now();
    const links = proxy.links();
    for (const link of links) proxy.blackhole(link);
    log(
      `blackhole: ${links.length} connections dead at +${
        at - ctx.started
      } ms; churn goes on for ${d.downMs} ms`,
    );
    const blindMs = await timeToFirstEvent(controller, at, d.downMs);
    return {
      t0: Date.now(),
      blackhole: { links: links.length, watchesReplacedAfterMs: idleTimeoutsSince(controller, at), blindMs },
    };
  }
  const refusedBefore = proxy.counters.refused;
  const downFigures = await readFigures(controller);
  const down = d.kind === "apiserver-kill" ? (await killApiserver()).killedAt : (await stopEtcd()).stoppedAt;
  log(`${d.kind} at +${down - ctx.started} ms`);
  await sleep(d.downMs);
  const upFigures = await readFigures(controller);
  const whileDown = {
    ...delta(downFigures, upFigures),
    seconds: (upFigures.at - downFigures.at) / 1000,
    refusedConnections: proxy.counters.refused - refusedBefore,
  };
  const back = d.kind === "apiserver-kill" ? await startApiserver() : await startEtcd();
  log(`ready again ${back.readyAt - back.startedAt} ms after the restart`);
  return {
    t0: back.readyAt,
    whileDown,
    outage: { downMs: back.startedAt - down, restartToReadyMs: back.readyAt - back.startedAt },
  };
}

/**
 * Polls the controller's /metrics each second for `forMs` and returns, per resource, how long after
 * `since` its informer received the first event (bookmarks included) on a watch opened after `since`:
 * events read from a dead connection's last bytes (a backlog the controller had not read yet) do not
 * count.
 */
async function timeToFirstEvent(
  controller: ControllerProcess,
  since: number,
  forMs: number,
): Promise<Record<string, number>> {
  const restarts = (text: string, resource: string) =>
    sampleSum(text, "kubeloop_informer_watch_restarts_total", { resource }) ?? 0;
  const before = await controller.scrapeMetrics();
  const out: Record<string, number> = {};
  const rewatchedAt: Record<string, number> = {};
  const end = since + forMs;
  while (Date.now() < end) {
    await sleep(Math.min(1_000, Math.max(end - Date.now(), 0)));
    const text = await controller.scrapeMetrics();
    for (const resource of RESOURCES) {
      if (out[resource] !== undefined) continue;
      if (rewatchedAt[resource] === undefined && restarts(text, resource) > restarts(before, resource)) {
        rewatchedAt[resource] = Date.now() - 1_000; // at most one poll ago
      }
      const last = sampleSum(text, "kubeloop_informer_last_event_timestamp_seconds", { resource });
      const at = rewatchedAt[resource];
      if (at !== undefined && last !== undefined && last * 1000 >= at) {
        out[resource] = Math.round(last * 1000 - since);
      }
    }
  }
  return out;
}

/** ms after `since` of each dead watch (idle timeout or past its deadline) the controller logged. */
function idleTimeoutsSince(controller: ControllerProcess, since: number): number[] {
  const out: number[] = [];
  for (const line of controller.logs().split("\n")) {
    if (!line.includes("received no bytes") && !line.includes("past its timeoutSeconds")) continue;
    try {
      const at = Date.parse((JSON.parse(line) as { ts: string }).ts);
      if (at >= since) out.push(at - since);
    } catch {
      // not a log line
    }
  }
  return out;
}
