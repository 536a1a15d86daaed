/** One finished API request, as seen by metrics. */
export interface RequestObservation {
  /** HTTP method. */
  readonly method: string;
  /** HTTP status code as a string, or "<error>" when no response arrived. */
  readonly code: string;
  /** Host of the API server. */
  readonly host: string;
  /** Time to the response head, in seconds. */
  readonly durationSeconds: number;
}

/** Hooks for request metrics (rest_client_requests_total, latency). No-op by default. */
export interface RequestMetrics {
  /** Called once per request, after the response head (or the failure). */
  observe(observation: RequestObservation): void;
}

/** Request metrics that record nothing. */
export const noopRequestMetrics: RequestMetrics = { observe() {} };
