import type { CertificateSource } from "./certificate_source.ts";
import type { MetricsRegistry } from "../metrics/registry.ts";
import { authorizeScrape } from "./metrics_auth.ts";
import type { ScrapeAuthorizer } from "./scrape_auth.ts";
import { serveTls } from "./tls_server.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { type Check, probeHandler } from "./probe.ts";

/** Options of {@link serveObservability}. */
export interface ObservabilityOptions {
  /**
   * Where `/metrics` listens: ":8080" (all interfaces), "127.0.0.1:0" (ephemeral) or "0" (off).
   * @default {":8080"}
   */
  metricsAddress?: string;
  /**
   * Where `/healthz` and `/readyz` listen, always plain HTTP; "0" disables them. May equal `metricsAddress`
   * only when metrics are plain HTTP too.
   * @default {":8081"}
   */
  healthAddress?: string;
  /**
   * Serve `/metrics` over HTTPS with this certificate, following its changes (see `certificateFiles` and
   * `generatedCertificate`).
   * @default {plain HTTP}
   */
  metricsTls?: CertificateSource;
  /**
   * Authenticate and authorize every scrape: a request without a bearer token gets 401, a denied one 403,
   * one that could not be decided 500. Needs `metricsTls` (a bearer token must not travel in clear).
   * @default {no check}
   */
  metricsAuthorizer?: ScrapeAuthorizer;
  /** The metrics served at `/metrics`. */
  registry: MetricsRegistry;
  /** `/readyz` answers 200 while this holds, else 503 (e.g. before caches synced). */
  readyz: Check;
  /**
   * `/healthz` answers 200 while this holds, else 503.
   * @default {() => true}
   */
  healthz?: Check;
  /** Stops the servers. */
  signal: AbortSignal;
  /**
   * Receives start-up and request failure lines.
   * @default {noopLogger}
   */
  logger?: Logger;
}

/** The running servers. */
export interface ObservabilityServer extends AsyncDisposable {
  /** URL of the metrics endpoint, e.g. "https://127.0.0.1:8443/metrics"; unset when disabled. */
  metricsUrl?: string;
  /** Base URL of the health endpoints (append /healthz or /readyz); unset when disabled. */
  healthUrl?: string;
  /** Resolves once every server has shut down after `signal` aborted. */
  finished: Promise<void>;
}

/** A listen address: `hostname` "0.0.0.0" when only ":port" was given. */
export interface ListenAddress {
  /** Interface to bind. */
  hostname: string;
  /** Port; 0 picks a free one. */
  port: number;
}

/** Parses ":8080", "127.0.0.1:0", "[::1]:9090" or "localhost:8080"; "0" gives `undefined` (disabled). */
export function parseListenAddress(address: string): ListenAddress | undefined {
  if (address === "0") return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new TypeError(`Invalid listen address "${address}": expected "host:port", ":port" or "0"`);
  }
  return { hostname: match[1] ?? (match[2] || "0.0.0.0"), port };
}

const METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/**
 * Serves `/metrics`, `/healthz` and `/readyz` with `Deno.serve` until `signal` aborts. A failing
 * check answers 503 naming what failed, its reason withheld (`[-]<check> failed: reason withheld`,
 * as kube-apiserver answers); the reason goes to the log only. With `metricsTls`, `/metrics` is HTTPS (the health endpoints
 * stay plain HTTP on their own port, for the kubelet's probes) and, with `metricsAuthorizer`, each scrape is
 * authenticated and authorized; the outcomes are counted in `kubeloop_metrics_authorization_total{decision}`.
 * Returns the bound URLs at once, so callers can find ephemeral ports.
 *
 * @example Serve /metrics, /healthz and /readyz
 * ```ts
 * import assert from "node:assert/strict";
 * import { MetricsRegistry, serveObservability } from "@kubeloop/kubeloop";
 *
 * const registry = new MetricsRegistry();
 * registry.counter("example_starts_total", "Starts.").inc();
 * let synced = false;
 * const stop = new AbortController();
 * const server = serveObservability({
 *   metricsAddress: "127.0.0.1:0", // a program listens on ":8080" and ":8081" (the defaults)
 *   healthAddress: "127.0.0.1:0",
 *   registry,
 *   readyz: () => ({ ok: synced, failures: [{ check: "informers", reason: "v1/secrets: 403 Forbidden" }] }),
 *   signal: stop.signal,
 * });
 * const notReady = await fetch(`${server.healthUrl}/readyz`);
 * assert.equal(notReady.status, 503);
 * // The reason goes to the `logger` only: the probes answer anyone who asks.
 * assert.match(await notReady.text(), /^\[-\]informers failed: reason withheld$/m);
 * synced = true;
 * assert.equal((await fetch(`${server.healthUrl}/readyz`).then((r) => r.text())).trim(), "ok");
 * assert.match(await fetch(server.metricsUrl!).then((r) => r.text()), /^example_starts_total 1$/m);
 * stop.abort();
 * await server.finished;
 * ```
 */
export function serveObservability(options: ObservabilityOptions): ObservabilityServer {
  const logger = options.logger ?? noopLogger;
  const metricsAt = parseListenAddress(options.metricsAddress ?? ":8080");
  const healthAt = parseListenAddress(options.healthAddress ?? ":8081");
  const healthz = options.healthz ?? (() => true);
  const shared = metricsAt && healthAt && metricsAt.hostname === healthAt.hostname &&
    metricsAt.port === healthAt.port && metricsAt.port !== 0;
  if (options.metricsAuthorizer && !options.metricsTls) {
    throw new TypeError("metricsAuthorizer needs metricsTls: bearer tokens must not be sent over plain HTTP");
  }
  if (shared && options.metricsTls) {
    throw new TypeError(
      `The metrics (HTTPS) and health (HTTP) endpoints cannot share the address "${options.metricsAddress}"`,
    );
  }
  const stop = new AbortController();
  const stopAll = () => stop.abort();
  options.signal.addEventListener("abort", stopAll, { once: true });
  if (options.signal.aborted) stop.abort();

  const render = () =>
    Promise.resolve(new Response(options.registry.render(), { headers: { "content-type": METRICS_TYPE } }));
  const authorizer = options.metricsAuthorizer;
  const metrics: Route = authorizer
    ? ((request) => authorizeScrape(request, authorizer, options.registry, logger, render))
    : render;
  const routes = new Map<string, Route>();
  const finishing: Promise<void>[] = [];
  const result: ObservabilityServer = {
    finished: Promise.resolve(),
    [Symbol.asyncDispose]: () => {
      stop.abort();
      return result.finished;
    },
  };
  const onError = (error: unknown) => {
    logger.error("Observability request failed", { error });
    return new Response("internal error\n", { status: 500 });
  };

  const start = (at: ListenAddress, paths: Map<string, Route>) => {
    const server = Deno.serve({
      hostname: at.hostname,
      port: at.port,
      signal: stop.signal,
      onListen: () => {},
      onError,
      handler: (request) => handle(request, paths),
    });
    finishing.push(server.finished);
    logger.info("Serving observability endpoints", {
      address: `${server.addr.hostname}:${server.addr.port}`,
      paths: [...paths.keys()],
    });
    return baseUrl("http", server.addr);
  };
  const startTls = (at: ListenAddress, certificates: CertificateSource) => {
    const paths = new Map([["/metrics", metrics]]);
    const server = serveTls({
      hostname: at.hostname,
      port: at.port,
      certificates,
      handler: (request) => handle(request, paths),
      onError,
      signal: stop.signal,
      logger,
    });
    finishing.push(server.finished);
    logger.info("Serving metrics over HTTPS", {
      address: `${server.addr.hostname}:${server.addr.port}`,
      scrapers: authorizer ? "authenticated and authorized" : "anyone",
    });
    return baseUrl("https", server.addr);
  };

  if (!stop.signal.aborted) {
    try {
      if (metricsAt) {
        if (options.metricsTls) {
          result.metricsUrl = `${startTls(metricsAt, options.metricsTls)}/metrics`;
        } else {
          routes.set("/metrics", metrics);
          const paths = shared ? routes : new Map([["/metrics", metrics]]);
          result.metricsUrl = `${start(metricsAt, paths)}/metrics`;
        }
      }
      if (healthAt) {
        const paths = shared ? routes : new Map<string, Route>();
        paths.set("/healthz", probeHandler("healthz", healthz, logger));
        paths.set("/readyz", probeHandler("readyz", options.readyz, logger));
        result.healthUrl = shared ? result.metricsUrl!.slice(0, -"/metrics".length) : start(healthAt, paths);
      }
    } catch (error) {
      stop.abort(); // close whatever did start before failing
      options.signal.removeEventListener("abort", stopAll);
      throw error;
    }
  }
  result.finished = Promise.all(finishing).then(() => {
    options.signal.removeEventListener("abort", stopAll);
  });
  return result;
}

/** One endpoint. */
type Route = (request: Request) => Promise<Response>;

async function handle(request: Request, routes: Map<string, Route>): Promise<Response> {
  const route = routes.get(new URL(request.url).pathname);
  if (!route) return new Response("not found\n", { status: 404 });
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response("method not allowed\n", { status: 405, headers: { allow: "GET, HEAD" } });
  }
  const response = await route(request);
  return request.method === "HEAD" ? new Response(null, response) : response;
}

function baseUrl(scheme: "http" | "https", addr: Deno.NetAddr): string {
  // A wildcard bind is reachable through loopback; the URL is for clients, not for binding.
  const host = addr.hostname === "0.0.0.0" ? "127.0.0.1" : addr.hostname === "::" ? "::1" : addr.hostname;
  return `${scheme}://${host.includes(":") ? `[${host}]` : host}:${addr.port}`;
}
