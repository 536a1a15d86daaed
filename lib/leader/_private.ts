import { hostnameOr } from "../_internal/hostname.ts";
import type { ApiError } from "../client/api_error.ts";
import { type Clock, sleep } from "../time/clock.ts";

/** True for an ApiError with this `reason` (duck-typed, so fakes need not subclass it). */
export function isApiError(error: unknown, reason: string): error is ApiError {
  return error instanceof Error && (error as Partial<ApiError>).reason === reason;
}

/**
 * hostname plus a random suffix, like client-go's default identity. The suffix keeps identities unique
 * even when the hostname is unavailable ("unknown") or shared by two processes on one host.
 */
export function defaultIdentity(): string {
  return `${hostnameOr("unknown")}_${crypto.randomUUID().slice(0, 8)}`;
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
