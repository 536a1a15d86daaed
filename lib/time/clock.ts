/** A cancellable pending timer. */
export interface Timer {
  /** Cancels the timer; does nothing if it already fired. */
  cancel(): void;
}

/**
 * The source of time. Everything that waits or measures takes a Clock, so unit tests can
 * use a fake one and never sleep.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds unless cancelled first. */
  setTimer(fn: () => void, ms: number): Timer;
}

/** The real clock, backed by Date.now and setTimeout. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const id = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(id) };
  },
};

/**
 * Resolves after `ms` on `clock`, or rejects with `signal.reason` as soon as the signal aborts.
 * The timer is cancelled on abort, so nothing keeps the process alive.
 */
export function sleep(
  ms: number,
  options: { signal?: AbortSignal | undefined; clock?: Clock } = {},
): Promise<void> {
  const { signal, clock = systemClock } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
