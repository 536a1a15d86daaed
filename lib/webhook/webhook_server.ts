/**
 * The HTTPS server of admission and conversion webhooks.
 * @module
 */
import type { TLSSocket } from "node:tls";
import type { CertificateSource } from "../observe/certificate_source.ts";
import { parseListenAddress } from "../observe/server.ts";
import { type Clock, systemClock } from "../time/clock.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import type { AdmissionWebhook } from "./admission_webhook.ts";
import type { ConversionWebhook } from "./conversion_webhook.ts";
import {
  type ConnectionLimits,
  type HttpRequest,
  type HttpResponse,
  serveConnection,
  type ServedConnection,
} from "./_http_connection.ts";
import { HttpRequestError } from "./_http_head.ts";
import { listenTls } from "./_tls_listener.ts";
import { coarseTimers } from "./_coarse_timers.ts";
import { ADMISSION_REVIEW_API_VERSION } from "./admission_review.ts";
import { CONVERSION_REVIEW_API_VERSION } from "./conversion_review.ts";
import { decodeAdmissionReview, decodeConversionReview } from "./_review_decode.ts";
import { noopWebhookMetrics, type WebhookMetrics, type WebhookRefusal } from "./webhook_metrics.ts";

/** The server's limits; every field has a default. */
export interface WebhookServerLimits extends ConnectionLimits {
  /** A client that has not completed its TLS handshake by then is disconnected. */
  readonly handshakeTimeoutMs: number;
  /** Connections beyond this many are closed as they arrive. */
  readonly maxConnections: number;
  /** After `signal` aborts, requests in flight get this long to finish before their connections close. */
  readonly shutdownGraceMs: number;
}

/**
 * The defaults: 7 MiB bodies (an object and its old version of up to 3 MiB each, as controller-runtime
 * allows), 16 KiB heads, 10 s to read a request and to handshake, 120 s idle (longer than the 90 s after which
 * Go clients, kube-apiserver among them, drop idle connections, so the server never closes one a client is
 * about to reuse), 1,024 connections, 30 s shutdown grace.
 */
export const DEFAULT_WEBHOOK_LIMITS: WebhookServerLimits = Object.freeze({
  maxHeaderBytes: 16 * 1024,
  maxBodyBytes: 7 * 1024 * 1024,
  requestTimeoutMs: 10_000,
  idleTimeoutMs: 120_000,
  handshakeTimeoutMs: 10_000,
  maxConnections: 1024,
  shutdownGraceMs: 30_000,
});

/** Options of {@linkcode serveWebhooks}. */
export interface WebhookServerOptions {
  /**
   * Where to listen: ":9443" (all interfaces), "127.0.0.1:0" (an ephemeral port).
   * @default {":9443"}
   */
  address?: string;
  /** The serving certificate, followed as it changes (files, generated, or any other source). */
  certificates: CertificateSource;
  /**
   * Admission webhooks, each at its path.
   * @default {[]}
   */
  webhooks?: readonly AdmissionWebhook[];
  /**
   * Conversion webhooks, each at its path.
   * @default {[]}
   */
  conversions?: readonly ConversionWebhook[];
  /** Stops the server: no new connections; requests in flight finish (up to `shutdownGraceMs`). */
  signal: AbortSignal;
  /**
   * Start, reload, refusal and handler-failure lines.
   * @default {noopLogger}
   */
  logger?: Logger;
  /**
   * Metric hooks (see `webhookMetricsFor`).
   * @default {noopWebhookMetrics}
   */
  metrics?: WebhookMetrics;
  /**
   * Limits that differ from {@linkcode DEFAULT_WEBHOOK_LIMITS}.
   * @default {{}}
   */
  limits?: Partial<WebhookServerLimits>;
  /**
   * Time source of deadlines and handler timeouts.
   * @default {systemClock}
   */
  clock?: Clock;
}

/** A running webhook server. */
export interface WebhookServer extends AsyncDisposable {
  /** The bound interface. */
  readonly hostname: string;
  /** The bound port. */
  readonly port: number;
  /** Base URL for clients on this host, e.g. "https://127.0.0.1:9443". */
  readonly url: string;
  /** Resolves once every connection closed after `signal` aborted. */
  readonly finished: Promise<void>;
}

type Route = (request: HttpRequest) => Promise<HttpResponse>;

const JSON_TYPE = "application/json";
const TEXT_TYPE = "text/plain; charset=utf-8";

/**
 * Serves the webhooks over HTTPS (TLS 1.2+, HTTP/1.1) until `signal` aborts; resolves once listening.
 * Each request is `POST <path>` with an `application/json` review; anything else is refused with the status
 * that says why (404 unknown path, 405 method, 415 content type, 400 malformed or wrong-version review,
 * 408 too slow, 413 too large, 431 head too large) and never reaches a handler. `GET /healthz` answers "ok"
 * (for a readiness probe). A certificate change from `certificates` applies to the next handshake.
 * Throws a TypeError for two webhooks on one path, and whatever binding the address throws.
 */
export async function serveWebhooks(options: WebhookServerOptions): Promise<WebhookServer> {
  const logger = options.logger ?? noopLogger;
  const metrics = options.metrics ?? noopWebhookMetrics;
  // Deadlines (request, write, handler) are set and cancelled per request and almost never fire.
  const clock = coarseTimers(options.clock ?? systemClock, 100);
  const limits: WebhookServerLimits = { ...DEFAULT_WEBHOOK_LIMITS, ...options.limits };
  const at = parseListenAddress(options.address ?? ":9443");
  if (at === undefined) throw new TypeError('The webhook server needs an address; "0" disables nothing here');
  const routes = routesOf(options, logger, clock);

  const connections = new Set<ServedConnection>();
  const refusedBy = (reason: WebhookRefusal) => {
    metrics.refused(reason);
    logger.debug("Refused a webhook connection or request", { reason });
  };
  const handle = async (request: HttpRequest): Promise<HttpResponse> => {
    const started = performance.now();
    const route = routes.get(request.path);
    const label = route ? request.path : "other";
    metrics.inFlight(label, 1);
    let response: HttpResponse;
    try {
      response = await dispatch(request, route);
    } catch (error) {
      logger.error("A webhook request failed", { path: label, error });
      response = { status: 500, contentType: TEXT_TYPE, body: "internal error\n" };
    }
    metrics.inFlight(label, -1);
    metrics.answered(label, response.status, (performance.now() - started) / 1000);
    if (response.status === 400 || response.status === 415) refusedBy("malformed");
    return response;
  };
  const listener = await listenTls({
    hostname: at.hostname,
    port: at.port,
    certificates: options.certificates,
    handshakeTimeoutMs: limits.handshakeTimeoutMs,
    maxConnections: limits.maxConnections,
    logger,
    onRefused: refusedBy,
    onSocket: (socket: TLSSocket) => {
      const connection = serveConnection(socket, {
        handler: handle,
        limits,
        clock,
        onOutcome: (outcome, detail) => {
          if (outcome === "refused") refusedBy(refusalOf(detail?.status));
          else if (outcome === "timeout" || outcome === "flood" || outcome === "write-timeout") {
            refusedBy(outcome);
          }
        },
      });
      connections.add(connection);
      void connection.closed.then(() => connections.delete(connection));
      if (options.signal.aborted) connection.drain();
    },
  });
  const host = listener.hostname === "0.0.0.0" || listener.hostname === "::"
    ? "127.0.0.1"
    : listener.hostname;
  const url = `https://${host.includes(":") ? `[${host}]` : host}:${listener.port}`;
  logger.info("Serving webhooks over HTTPS", {
    address: `${listener.hostname}:${listener.port}`,
    paths: [...routes.keys()],
  });

  const finished = new Promise<void>((resolve) => {
    const stop = async () => {
      listener.close();
      for (const connection of connections) connection.drain();
      const grace = clock.setTimer(() => {
        for (const connection of connections) connection.destroy();
      }, limits.shutdownGraceMs);
      await Promise.all([...connections].map((c) => c.closed));
      grace.cancel();
      logger.info("Stopped serving webhooks");
      resolve();
    };
    if (options.signal.aborted) void stop();
    else options.signal.addEventListener("abort", () => void stop(), { once: true });
  });
  return {
    hostname: listener.hostname,
    port: listener.port,
    url,
    finished,
    [Symbol.asyncDispose]: () => finished,
  };
}

function refusalOf(status: number | undefined): WebhookRefusal {
  if (status === 408) return "timeout";
  return status === 413 || status === 431 ? "too-large" : "malformed";
}

/** Answers one request on its route. */
async function dispatch(request: HttpRequest, route: Route | undefined): Promise<HttpResponse> {
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

function routesOf(options: WebhookServerOptions, logger: Logger, clock: Clock): Map<string, Route> {
  const routes = new Map<string, Route>();
  const add = (path: string, route: Route) => {
    if (routes.has(path) || path === "/healthz") throw new TypeError(`Two webhooks are served at "${path}"`);
    routes.set(path, route);
  };
  for (const webhook of options.webhooks ?? []) {
    add(webhook.path, async (request) => {
      const review = decodeAdmissionReview(request.body);
      const response = await webhook.review(review, { logger, clock });
      return json({ apiVersion: ADMISSION_REVIEW_API_VERSION, kind: "AdmissionReview", response });
    });
  }
  for (const conversion of options.conversions ?? []) {
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
