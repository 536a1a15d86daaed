import type { MetricsRegistry } from "../metrics/registry.ts";
import type { ScrapeAuthorizer, ScrapeDecision } from "./scrape_auth.ts";
import type { Logger } from "../log/logger.ts";

const TEXT = { "content-type": "text/plain; charset=utf-8" };

/**
 * Serves `render()` to a scrape only when `authorizer` allows it: no `Authorization: Bearer <token>` header
 * answers 401 at once (no review is sent for it); otherwise the authorizer decides (401, 403, 429 with
 * Retry-After when the reviews it needs are over their budget, or 500 when it could not decide). Answers never
 * quote the token; denials and throttling are logged at debug level only, so a flood of unauthenticated
 * requests cannot flood the logs, and every outcome is counted in
 * `kubeloop_metrics_authorization_total{decision}`.
 */
export async function authorizeScrape(
  request: Request,
  authorizer: ScrapeAuthorizer,
  registry: MetricsRegistry,
  logger: Logger,
  render: () => Promise<Response>,
): Promise<Response> {
  const decisions = registry.counter(
    "kubeloop_metrics_authorization_total",
    "Scrapes of the metrics endpoint by authentication and authorization outcome.",
    ["decision"],
  );
  const token = bearerToken(request.headers.get("authorization"));
  const decision: ScrapeDecision = token === undefined
    ? { kind: "unauthenticated", reason: "no bearer token" }
    : await authorizer.review({
      token,
      path: new URL(request.url).pathname,
      verb: "get",
    }).catch((error: unknown): ScrapeDecision => ({ kind: "error", reason: String(error) }));
  decisions.inc({ decision: decision.kind });
  switch (decision.kind) {
    case "allowed":
      return await render();
    case "unauthenticated":
      logger.debug("Refused a metrics scrape: not authenticated", { reason: decision.reason });
      return new Response("Unauthorized\n", {
        status: 401,
        headers: { ...TEXT, "www-authenticate": 'Bearer realm="metrics"' },
      });
    case "forbidden":
      logger.debug("Refused a metrics scrape: not authorized", {
        user: decision.user,
        reason: decision.reason,
      });
      return new Response(
        `Forbidden: user "${decision.user}" may not get ${new URL(request.url).pathname}\n`,
        {
          status: 403,
          headers: TEXT,
        },
      );
    case "throttled":
      logger.debug("Refused a metrics scrape: too many reviews", { reason: decision.reason });
      return new Response("Too many requests\n", {
        status: 429,
        headers: { ...TEXT, "retry-after": String(decision.retryAfterSeconds) },
      });
    case "error":
      logger.warn("Cannot authorize a metrics scrape", { reason: decision.reason });
      return new Response("Cannot authorize the request\n", { status: 500, headers: TEXT });
  }
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), else undefined. */
export function bearerToken(header: string | null): string | undefined {
  const match = /^bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header ?? "");
  return match?.[1];
}
