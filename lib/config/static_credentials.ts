import type { Credentials, CredentialSource } from "./types.ts";

/**
 * A CredentialSource for credentials that never change (a kubeconfig `token`, or none at all
 * when the client certificate in the TLS options is the only credential). `invalidate()` has
 * nothing to refresh.
 */
export function staticCredentials(credentials: Credentials = {}): CredentialSource {
  const frozen = Object.freeze({ ...credentials });
  return {
    get(signal?: AbortSignal): Promise<Credentials> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      return Promise.resolve(frozen);
    },
    invalidate(): void {},
  };
}
