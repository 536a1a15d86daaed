import type { ApiError } from "../client/api_error.ts";
import { type Clock, sleep } from "../time/clock.ts";

/** True for an ApiError with this `reason` (duck-typed, so fakes need not subclass it). */
export function isApiError(error: unknown, reason: string): error is ApiError {
  return error instanceof Error && (error as Partial<ApiError>).reason === reason;
}

/** hostname plus a random suffix, like client-go's default identity. */
export function defaultIdentity(): string {
  let host = "unknown";
  try {
    host = Deno.hostname();
  } catch {
    // Without --allow-sys the hostname is unavailable; the random suffix still keeps identities unique.
  }
  return `${host}_${crypto.randomUUID().slice(0, 8)}`;
}

/** Sleeps; returns false instead of throwing when `signal` aborts. */
export async function sleepOrAbort(ms: number, signal: AbortSignal, clock: Clock): Promise<boolean> {
  try {
    await sleep(ms, { signal, clock });
    return true;
  } catch {
    return false;
  }
}

/** Runs `fn` with a signal that also aborts after `ms` on `clock`; the timer never outlives the call. */
export async function withTimeout<R>(
  parent: AbortSignal,
  ms: number,
  clock: Clock,
  fn: (signal: AbortSignal) => Promise<R>,
): Promise<R> {
  const ctl = new AbortController();
  const timer = clock.setTimer(
    () => ctl.abort(new DOMException("Lease request timed out", "TimeoutError")),
    ms,
  );
  const onAbort = () => ctl.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener("abort", onAbort, { once: true });
  try {
    return await fn(ctl.signal);
  } finally {
    timer.cancel();
    parent.removeEventListener("abort", onAbort);
  }
}
