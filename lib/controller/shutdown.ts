import type { Logger } from "../log/logger.ts";
import type { Clock, Timer } from "../time/clock.ts";

/** How long shutdown waits, after aborting in-flight reconciles, for them to return. */
export const hardStopWaitMs = 5_000;

/** What {@linkcode stopWorkers} needs from the controller. */
export interface StopWorkersOptions {
  /** The worker loops, started on a queue that is already shut down. */
  workers: Promise<void>[];
  /** How long in-flight reconciles may run undisturbed. */
  gracePeriodMs: number;
  /** Aborting it aborts every in-flight reconcile's signal. */
  hardStop: AbortController;
  /** The keys being reconciled right now, for the logs. */
  inFlight: () => string[];
  /** Measures both bounds. */
  clock: Clock;
  /** Where the warnings go. */
  logger: Logger;
}

/**
 * Stops the workers in two bounded steps. During the grace period in-flight reconciles finish
 * undisturbed (skipped when `hardStop` already aborted, e.g. because leadership was lost). Then their signals abort and we wait up to {@linkcode hardStopWaitMs} more for them to
 * return: an aborted reconcile may still be writing, and the Manager releases the Lease as soon as this
 * resolves, so returning earlier would let a new leader reconcile the same objects concurrently. A
 * reconcile that ignores its signal past that bound is abandoned, with its key logged, so shutdown stays
 * within the pod's termination grace period.
 */
export async function stopWorkers(options: StopWorkersOptions): Promise<void> {
  const { clock, logger } = options;
  const workers = Promise.all(options.workers);
  if (!options.hardStop.signal.aborted) {
    if (await settlesWithin(workers, options.gracePeriodMs, clock)) return;
    logger.warn("Shutdown grace period ended; aborting in-flight reconciles", {
      inFlight: options.inFlight(),
      gracePeriodMs: options.gracePeriodMs,
    });
    options.hardStop.abort(new Error("shutdown grace period ended"));
  }
  if (await settlesWithin(workers, hardStopWaitMs, clock)) return;
  logger.warn("Reconciles still running after their signals aborted; no longer waiting for them", {
    inFlight: options.inFlight(),
    waitedMs: hardStopWaitMs,
  });
}

/** True when `promise` resolves within `ms` on `clock` (a rejection propagates); cancels its timer. */
async function settlesWithin(promise: Promise<unknown>, ms: number, clock: Clock): Promise<boolean> {
  let timer: Timer | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = clock.setTimer(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    timer?.cancel();
  }
}
