/**
 * The HTTPS server of admission and conversion webhooks.
 * @module
 */
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
import { listenTls } from "./_tls_listener.ts";
import { coarseTimers } from "./_coarse_timers.ts";
import { dispatch, routesOf } from "./_routes.ts";
import { noopWebhookMetrics, type WebhookMetrics, type WebhookRefusal } from "./webhook_metrics.ts";

/** The server's limits; every field has a default. */
export interface WebhookServerLimits extends ConnectionLimits {
  /**
   * Connections in their TLS handshake at once; at this many the server stops accepting, and new
   * connections wait in the kernel's accept queue until a handshake ends. (Handshakes have no deadline: in
   * Deno 2.9.6 closing a connection during its handshake leaks the socket.)
   */
  readonly maxHandshakes: number;
  /** Connections beyond this many are closed as they arrive. */
  readonly maxConnections: number;
  /** After `signal` aborts, requests in flight get this long to finish before their connections close. */
  readonly shutdownGraceMs: number;
}

/**
 * The defaults: 7 MiB bodies (an object and its old version of up to 3 MiB each, as controller-runtime
 * allows), 16 KiB heads, 10 s to read a request from its first byte, 120 s idle before a connection's first
 * request and between requests (longer than the 90 s after which Go clients, kube-apiserver among them, drop
 * idle connections, so the server never closes one a client is about to reuse), 128 handshakes at once,
 * 1,024 connections, 30 s shutdown grace.
 */
export const DEFAULT_WEBHOOK_LIMITS: WebhookServerLimits = Object.freeze({
  maxHeaderBytes: 16 * 1024,
  maxBodyBytes: 7 * 1024 * 1024,
  requestTimeoutMs: 10_000,
  idleTimeoutMs: 120_000,
  maxHandshakes: 128,
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

const TEXT_TYPE = "text/plain; charset=utf-8";

/**
 * Serves the webhooks over HTTPS (TLS 1.2+, HTTP/1.1) until `signal` aborts; returns once listening.
 * Each request is `POST <path>` with an `application/json` review; anything else is refused with the status
 * that says why (404 unknown path, 405 method, 415 content type, 400 malformed or wrong-version review,
 * 408 too slow, 413 too large, 431 head too large) and never reaches a handler. `GET /healthz` answers "ok"
 * (for a readiness probe). A certificate change from `certificates` serves new connections (the listener is
 * replaced, see _tls_listener.ts for what that costs); connections already open keep theirs.
 * Throws a TypeError for two webhooks on one path, and whatever binding the address throws.
 */
export function serveWebhooks(options: WebhookServerOptions): WebhookServer {
  const logger = options.logger ?? noopLogger;
  const metrics = options.metrics ?? noopWebhookMetrics;
  // Deadlines (request, write, handler) are set and cancelled per request and almost never fire.
  const clock = coarseTimers(options.clock ?? systemClock, 100);
  const limits: WebhookServerLimits = { ...DEFAULT_WEBHOOK_LIMITS, ...options.limits };
  const at = parseListenAddress(options.address ?? ":9443");
  if (at === undefined) throw new TypeError('The webhook server needs an address; "0" disables nothing here');
  const routes = routesOf(options.webhooks ?? [], options.conversions ?? [], logger, clock);

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
  const listener = listenTls({
    hostname: at.hostname,
    port: at.port,
    certificates: options.certificates,
    maxHandshakes: limits.maxHandshakes,
    maxConnections: limits.maxConnections,
    logger,
    onRefused: refusedBy,
    onSocket: (socket) => {
      const connection = serveConnection(socket, {
        handler: handle,
        limits,
        clock,
        onOutcome: (outcome, detail) => {
          if (outcome === "refused") refusedBy(refusalOf(detail?.status));
          else if (outcome === "flood" || outcome === "write-timeout") {
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
