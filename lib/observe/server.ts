import type { MetricsRegistry } from "./metrics.ts";
import { type Logger, noopLogger } from "./types.ts";

/** The result of a health check, with the reason shown in the 503 body when it fails. */
export interface CheckResult {
  /** Healthy or ready. */
  readonly ok: boolean;
  /** Why not, one reason per line (shown in the response body). */
  readonly detail?: string;
}

/** A health check: true (or `{ ok: true }`) when healthy or ready. */
export type Check = () => boolean | CheckResult | Promise<boolean | CheckResult>;

/** Options of {@link serveObservability}. */
export interface ObservabilityOptions {
  /**
   * Where `/metrics` listens: ":8080" (all interfaces), "127.0.0.1:0" (ephemeral) or "0" (off).
   * @default {":8080"}
   */
  metricsAddress?: string;
  /**
   * Where `/healthz` and `/readyz` listen; "0" disables them. May equal `metricsAddress`.
   * @default {":8081"}
   */
  healthAddress?: string;
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
  /** URL of the metrics endpoint, e.g. "http://127.0.0.1:8080/metrics"; unset when disabled. */
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
 * check answers 503 with the reason as text. Returns the bound URLs at once, so callers can find
 * ephemeral ports.
 */
export function serveObservability(options: ObservabilityOptions): ObservabilityServer {
  const logger = options.logger ?? noopLogger;
  const metricsAt = parseListenAddress(options.metricsAddress ?? ":8080");
  const healthAt = parseListenAddress(options.healthAddress ?? ":8081");
  const healthz = options.healthz ?? (() => true);
  const stop = new AbortController();
  const stopAll = () => stop.abort();
  options.signal.addEventListener("abort", stopAll, { once: true });
  if (options.signal.aborted) stop.abort();

  const metrics = () =>
    Promise.resolve(new Response(options.registry.render(), { headers: { "content-type": METRICS_TYPE } }));
  const routes = new Map<string, () => Promise<Response>>();
  const servers: Deno.HttpServer<Deno.NetAddr>[] = [];
  const result: ObservabilityServer = {
    finished: Promise.resolve(),
    [Symbol.asyncDispose]: () => {
      stop.abort();
      return result.finished;
    },
  };
  const shared = metricsAt && healthAt && metricsAt.hostname === healthAt.hostname &&
    metricsAt.port === healthAt.port && metricsAt.port !== 0;

  const start = (at: ListenAddress, paths: Map<string, () => Promise<Response>>) => {
    const server = Deno.serve({
      hostname: at.hostname,
      port: at.port,
      signal: stop.signal,
      onListen: () => {},
      onError: (error) => {
        logger.error("Observability request failed", { error });
        return new Response("internal error\n", { status: 500 });
      },
      handler: (request) => handle(request, paths),
    });
    servers.push(server);
    logger.info("Serving observability endpoints", {
      address: `${server.addr.hostname}:${server.addr.port}`,
    });
    return baseUrl(server.addr);
  };

  if (!stop.signal.aborted) {
    try {
      if (metricsAt) {
        routes.set("/metrics", metrics);
        const paths = shared ? routes : new Map([["/metrics", metrics]]);
        result.metricsUrl = `${start(metricsAt, paths)}/metrics`;
      }
      if (healthAt) {
        const paths = shared ? routes : new Map<string, () => Promise<Response>>();
        paths.set("/healthz", () => probe("healthz", healthz, logger));
        paths.set("/readyz", () => probe("readyz", options.readyz, logger));
        result.healthUrl = shared ? result.metricsUrl!.slice(0, -"/metrics".length) : start(healthAt, paths);
      }
    } catch (error) {
      stop.abort(); // close whatever did start before failing
      options.signal.removeEventListener("abort", stopAll);
      throw error;
    }
  }
  result.finished = Promise.all(servers.map((s) => s.finished)).then(() => {
    options.signal.removeEventListener("abort", stopAll);
  });
  return result;
}

async function handle(request: Request, routes: Map<string, () => Promise<Response>>): Promise<Response> {
  const route = routes.get(new URL(request.url).pathname);
  if (!route) return new Response("not found\n", { status: 404 });
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response("method not allowed\n", { status: 405, headers: { allow: "GET, HEAD" } });
  }
  const response = await route();
  return request.method === "HEAD" ? new Response(null, response) : response;
}

async function probe(name: string, check: Check, logger: Logger): Promise<Response> {
  const text = { "content-type": "text/plain; charset=utf-8" };
  try {
    const result = await check();
    const ok = typeof result === "boolean" ? result : result.ok;
    if (ok) return new Response("ok\n", { headers: text });
    const detail = typeof result === "boolean" || !result.detail ? "" : `\n${result.detail}`;
    return new Response(`${name} check failed: not ${name === "readyz" ? "ready" : "healthy"}${detail}\n`, {
      status: 503,
      headers: text,
    });
  } catch (error) {
    logger.warn(`The ${name} check threw`, { error });
    const message = error instanceof Error ? error.message : String(error);
    return new Response(`${name} check failed: ${message}\n`, { status: 503, headers: text });
  }
}

function baseUrl(addr: Deno.NetAddr): string {
  // A wildcard bind is reachable through loopback; the URL is for clients, not for binding.
  const host = addr.hostname === "0.0.0.0" ? "127.0.0.1" : addr.hostname === "::" ? "::1" : addr.hostname;
  return `http://${host.includes(":") ? `[${host}]` : host}:${addr.port}`;
}
