/**
 * The webhook server's paths: each admission and conversion webhook at its own, `GET /healthz`, and the
 * checks (method, content type, a well-formed review) that come before any handler.
 * @module
 */
import type { Clock } from "../time/clock.ts";
import type { Logger } from "../log/logger.ts";
import type { AdmissionWebhook } from "./admission_webhook.ts";
import type { ConversionWebhook } from "./conversion_webhook.ts";
import type { HttpRequest, HttpResponse } from "./_http_connection.ts";
import { HttpRequestError } from "./_http_head.ts";
import { ADMISSION_REVIEW_API_VERSION } from "./admission_review.ts";
import { CONVERSION_REVIEW_API_VERSION } from "./conversion_review.ts";
import { decodeAdmissionReview, decodeConversionReview } from "./_review_decode.ts";

/** Answers the requests of one path. */
export type Route = (request: HttpRequest) => Promise<HttpResponse>;

const JSON_TYPE = "application/json";
const TEXT_TYPE = "text/plain; charset=utf-8";

/** Answers one request on its route. */
export async function dispatch(request: HttpRequest, route: Route | undefined): Promise<HttpResponse> {
  if (request.path === "/healthz" && (request.method === "GET" || request.method === "HEAD")) {
    return { status: 200, contentType: TEXT_TYPE, body: "ok\n" };
  }
  if (route === undefined) return { status: 404, contentType: TEXT_TYPE, body: "no webhook at this path\n" };
  if (request.method !== "POST") return { status: 405, contentType: TEXT_TYPE, body: "webhooks take POST\n" };
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== JSON_TYPE) {
    return { status: 415, contentType: TEXT_TYPE, body: "the review must be sent as application/json\n" };
  }
  try {
    return await route(request);
  } catch (error) {
    if (!(error instanceof HttpRequestError)) throw error;
    return { status: error.status, contentType: TEXT_TYPE, body: `${error.message}\n` };
  }
}

/** The route of each webhook's path; throws a TypeError for two on one path. */
export function routesOf(
  webhooks: readonly AdmissionWebhook[],
  conversions: readonly ConversionWebhook[],
  logger: Logger,
  clock: Clock,
): Map<string, Route> {
  const routes = new Map<string, Route>();
  const add = (path: string, route: Route) => {
    if (routes.has(path) || path === "/healthz") throw new TypeError(`Two webhooks are served at "${path}"`);
    routes.set(path, route);
  };
  for (const webhook of webhooks) {
    add(webhook.path, async (request) => {
      const review = decodeAdmissionReview(request.body);
      const response = await webhook.review(review, { logger, clock });
      return json({ apiVersion: ADMISSION_REVIEW_API_VERSION, kind: "AdmissionReview", response });
    });
  }
  for (const conversion of conversions) {
    add(conversion.path, (request) => {
      const review = decodeConversionReview(request.body);
      const response = conversion.review(review, { logger });
      return Promise.resolve(
        json({ apiVersion: CONVERSION_REVIEW_API_VERSION, kind: "ConversionReview", response }),
      );
    });
  }
  return routes;
}

function json(value: unknown): HttpResponse {
  return { status: 200, contentType: JSON_TYPE, body: JSON.stringify(value) };
}
