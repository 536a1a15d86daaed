/** Reading the controller's own figures: its /metrics page and its resident memory. */
import { sampleSum } from "../integration/_metrics.ts";

/** The resources the Foo controller's informers watch, as metric labels. */
export const RESOURCES = ["samplecontroller.k8s.io/v1alpha1/foos", "apps/v1/deployments"] as const;

const METHODS = ["GET", "PATCH", "POST", "PUT", "DELETE"];

/** The counters the scenarios report, per informer resource and overall. */
export interface ControllerFigures {
  readonly at: number;
  /** Full lists (initial list included), per resource. */
  readonly relists: Record<string, number>;
  /** Watch requests (the first and every restart), per resource. */
  readonly watchRequests: Record<string, number>;
  /** Watch failures retried with backoff, per resource. */
  readonly watchErrors: Record<string, number>;
  /** Requests sent, all codes, and those that got no answer (code "<error>"). */
  readonly requests: number;
  readonly requestsWithoutAnswer: number;
  /** Requests by method (GET: lists and watches; PATCH: applies and status; POST: events). */
  readonly requestsByMethod: Record<string, number>;
  /** Answers >= 500. */
  readonly serverErrors: number;
  readonly reconciles: number;
  readonly reconcileErrors: number;
  readonly queueDepth: number;
}

function perResource(text: string, name: string): Record<string, number> {
  return Object.fromEntries(
    RESOURCES.map((resource) => [resource, sampleSum(text, name, { resource }) ?? 0]),
  );
}

function serverErrorCount(text: string): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    const m = /^rest_client_requests_total\{[^}]*code="(5\d\d)"[^}]*\} (\S+)$/.exec(line);
    if (m) sum += Number(m[2]);
  }
  return sum;
}

/** Scrapes the controller's /metrics once (over HTTPS, with a token allowed to read it). */
export async function readFigures(
  controller: { scrapeMetrics(): Promise<string> },
): Promise<ControllerFigures> {
  const text = await controller.scrapeMetrics();
  return {
    at: Date.now(),
    relists: perResource(text, "kubeloop_informer_relists_total"),
    watchRequests: perResource(text, "kubeloop_informer_watch_restarts_total"),
    watchErrors: perResource(text, "kubeloop_informer_watch_errors_total"),
    requests: sampleSum(text, "rest_client_requests_total") ?? 0,
    requestsWithoutAnswer: sampleSum(text, "rest_client_requests_total", { code: "<error>" }) ?? 0,
    requestsByMethod: Object.fromEntries(
      METHODS.map((method) => [method, sampleSum(text, "rest_client_requests_total", { method }) ?? 0]),
    ),
    serverErrors: serverErrorCount(text),
    reconciles: sampleSum(text, "controller_runtime_reconcile_total", { controller: "foo" }) ?? 0,
    reconcileErrors: sampleSum(text, "controller_runtime_reconcile_errors_total", { controller: "foo" }) ?? 0,
    queueDepth: sampleSum(text, "workqueue_depth", { name: "foo" }) ?? NaN,
  };
}

/** `later - earlier`, counter by counter (the gauge `queueDepth` is `later`'s). */
export function delta(earlier: ControllerFigures, later: ControllerFigures): ControllerFigures {
  const sub = (a: Record<string, number>, b: Record<string, number>) =>
    Object.fromEntries(Object.keys(b).map((k) => [k, (b[k] ?? 0) - (a[k] ?? 0)]));
  return {
    at: later.at,
    relists: sub(earlier.relists, later.relists),
    watchRequests: sub(earlier.watchRequests, later.watchRequests),
    watchErrors: sub(earlier.watchErrors, later.watchErrors),
    requests: later.requests - earlier.requests,
    requestsWithoutAnswer: later.requestsWithoutAnswer - earlier.requestsWithoutAnswer,
    requestsByMethod: sub(earlier.requestsByMethod, later.requestsByMethod),
    serverErrors: later.serverErrors - earlier.serverErrors,
    reconciles: later.reconciles - earlier.reconciles,
    reconcileErrors: later.reconcileErrors - earlier.reconcileErrors,
    queueDepth: later.queueDepth,
  };
}

/** Resident set size of process `pid` in bytes (Linux /proc). */
export async function rssBytes(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`No VmRSS in /proc/${pid}/status`);
  return kb * 1024;
}

/** Sum of a per-resource record. */
export function total(record: Record<string, number>): number {
  return Object.values(record).reduce((a, b) => a + b, 0);
}
