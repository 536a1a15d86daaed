import type { Clock } from "../time/clock.ts";

/** Options of {@linkcode withTimeout}. */
export interface WithTimeoutOptions {
  /**
   * Aborts the call early too.
   * @default {never}
   */
  signal?: AbortSignal | undefined;
  /** The call's signal aborts with a TimeoutError after this long. */
  timeoutMs: number;
  /** Measures the timeout, so unit tests use a fake clock. */
  clock: Clock;
  /**
   * Names the call in the TimeoutError's message.
   * @default {"Operation"}
   */
  what?: string;
}

/**
 * Runs `fn` with a signal that aborts when `options.signal` does or after `timeoutMs`. The timer and
 * the listener never outlive the call, so nothing keeps the process alive afterwards. It only bounds
 * what honours the signal: `fn` must pass it down to its I/O.
 */
export async function withTimeout<R>(
  fn: (signal: AbortSignal) => Promise<R>,
  options: WithTimeoutOptions,
): Promise<R> {
  const { signal: parent, timeoutMs, clock, what = "Operation" } = options;
  const ctl = new AbortController();
  const timer = clock.setTimer(
    () => ctl.abort(new DOMException(`${what} timed out after ${timeoutMs} ms`, "TimeoutError")),
    timeoutMs,
  );
  const onAbort = () => ctl.abort(parent?.reason);
  if (parent?.aborted) onAbort();
  else parent?.addEventListener("abort", onAbort, { once: true });
  try {
    return await fn(ctl.signal);
  } finally {
    timer.cancel();
    parent?.removeEventListener("abort", onAbort);
  }
}
