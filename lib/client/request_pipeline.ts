import type { ClusterConfig } from "../config/types.ts";
import type { HttpResponse } from "../http/types.ts";
import type { Logger } from "../log/logger.ts";
import { type Clock, sleep } from "../time/clock.ts";
import { discardBody } from "./discard_body.ts";
import { errorFromResponse } from "./error_response.ts";
import type { TransportSource } from "./owned_transports.ts";
import type { RequestMetrics } from "./request_metrics.ts";
import type { TokenBucket } from "./token_bucket.ts";
import type { WriteFence } from "./client_options.ts";
import { inSpan, type TraceSpan, tracingEnabled } from "../trace/tracing.ts";

/** A request body with its media type. */
export interface RequestBody {
  readonly text: string;
  readonly type: string;
}

/** A JSON request body. */
export function jsonBody(value: unknown): RequestBody {
  return { text: JSON.stringify(value), type: "application/json" };
}

/** One API request, relative to the server URL. */
export interface ApiRequest {
  readonly method: string;
  /** The path below the server URL (which may carry a prefix), e.g. `/api/v1/namespaces`. */
  readonly path: string;
  readonly query?: URLSearchParams | undefined;
  readonly body?: RequestBody | undefined;
  readonly signal?: AbortSignal | undefined;
  /** A watch: its own connection and no read timeout (see HttpRequest.stream). */
  readonly stream: boolean;
  /**
   * The Accept header.
   * @default {"application/json"}
   */
  readonly accept?: string | undefined;
  /**
   * What the request does, for its span: a Kubernetes verb ("get", "list", "watch", "create", "update",
   * "patch", "apply", "delete") and the resource ("apps/v1/deployments", "v1/pods/status").
   * @default {the method, no resource}
   */
  readonly operation?: { readonly verb: string; readonly resource: string } | undefined;
}

/** What the pipeline needs; the KubeClient resolves every default before building it. */
export interface RequestPipelineOptions {
  readonly config: ClusterConfig;
  readonly transports: TransportSource;
  readonly limiter: TokenBucket | undefined;
  readonly maxRetries: number;
  readonly maxRetryWaitMs: number;
  readonly metrics: RequestMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Sent as the User-Agent header of every request (the one place it is set). */
  readonly userAgent: string;
  /** Consulted before each write goes to the transport, and by it right before the first byte. */
  readonly writeFence?: WriteFence | undefined;
}

/**
 * Sends API requests with what every request needs: the client-side rate limit, fresh
 * credentials, the write fence, the User-Agent and Accept headers, and request metrics. Answers are handled as
 * client-go does:
 * - 401: the credentials are invalidated (a rotated token file, an expired exec credential) and
 *   the request is sent once more with new ones;
 * - 429, and 503 with Retry-After: sent again after the server's delay (capped at
 *   `maxRetryWaitMs`), at most `maxRetries` times;
 * - any other non-2xx answer: an ApiError built from the server's Status.
 * Bodies of answers that are retried are drained when small, so their connection is reused.
 * While tracing is on, each request is one span (`<verb> <resource>`, a child of the span active at the
 * call, e.g. a reconcile's) from the rate limiter to the final response head, with the method, verb,
 * resource, server, final status code and the number of times it was sent again; never the path, a
 * body or a header.
 */
export class RequestPipeline {
  readonly #o: RequestPipelineOptions;
  readonly #base: string;

  /** A pipeline for `options.config.server`. */
  constructor(options: RequestPipelineOptions) {
    this.#o = options;
    this.#base = options.config.server.href.replace(/\/+$/, "");
  }

  /**
   * Sends `req` and resolves with its 2xx response, whose body the caller must read or cancel.
   * @throws {ApiError} for other answers, or the transport's error, or the abort reason.
   */
  send(req: ApiRequest): Promise<HttpResponse> {
    if (!tracingEnabled()) return this.#send(req, undefined);
    const op = req.operation;
    const server = this.#o.config.server;
    return inSpan(op ? `${op.verb} ${op.resource}` : req.method, {
      client: true,
      attributes: {
        "http.request.method": req.method,
        "kubeloop.verb": op?.verb,
        "kubeloop.resource": op?.resource,
        "server.address": server.hostname,
        "server.port": Number(server.port) || (server.protocol === "https:" ? 443 : 80),
      },
    }, (span) => this.#send(req, span));
  }

  async #send(req: ApiRequest, span: TraceSpan | undefined): Promise<HttpResponse> {
    const { method, path, body, signal, stream } = req;
    const o = this.#o;
    const qs = req.query?.toString();
    const url = new URL(this.#base + path + (qs ? `?${qs}` : ""));
    let authRetried = false;
    for (let attempt = 0;; attempt++) {
      signal?.throwIfAborted();
      await o.limiter?.take(signal);
      const creds = await o.config.credentials.get(signal);
      const headers: Record<string, string> = {
        "Accept": req.accept ?? "application/json",
        "User-Agent": o.userAgent,
      };
      // Without it the transport asks for gzip; "identity" makes the server send the body as it is.
      if (o.config.disableCompression === true) headers["Accept-Encoding"] = "identity";
      if (creds.token) headers["Authorization"] = `Bearer ${creds.token}`;
      if (body) headers["Content-Type"] = body.type;
      // Before the transport, so a refused write opens nothing (the limiter and a credential refresh
      // may have waited long), and again by the transport right before the first byte is written
      // (connecting and the TLS handshake may take long too).
      const fence = method !== "GET" && method !== "HEAD" ? o.writeFence : undefined;
      fence?.check();
      const started = o.clock.now();
      let res: HttpResponse;
      try {
        res = await o.transports.forCredentials(creds).request({
          method,
          url,
          headers,
          ...(body ? { body: body.text } : {}),
          ...(signal ? { signal } : {}),
          ...(fence ? { beforeWrite: () => fence.check() } : {}),
          stream,
        });
      } catch (err) {
        this.#observe(method, "<error>", started);
        throw err;
      }
      this.#observe(method, String(res.status), started);
      span?.setAttribute("http.response.status_code", res.status);
      if (attempt > 0) span?.setAttribute("http.request.resend_count", attempt);
      if (res.status >= 200 && res.status < 300) return res;
      if (res.status === 401 && !authRetried) {
        authRetried = true;
        await discardBody(res, stream);
        o.config.credentials.invalidate();
        continue;
      }
      const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
      const retryable = res.status === 429 || (res.status === 503 && retryAfter !== undefined);
      if (retryable && attempt < o.maxRetries) {
        await discardBody(res, stream);
        const waitMs = Math.min((retryAfter ?? 1) * 1000, o.maxRetryWaitMs);
        o.logger.debug("server asked to retry", { method, path, status: res.status, waitMs });
        await sleep(waitMs, signal ? { signal, clock: o.clock } : { clock: o.clock });
        continue;
      }
      throw await errorFromResponse(res, method, path, retryAfter);
    }
  }

  #observe(method: string, code: string, started: number): void {
    const durationSeconds = (this.#o.clock.now() - started) / 1000;
    this.#o.metrics.observe({ method, code, host: this.#o.config.server.host, durationSeconds });
  }
}

/** Retry-After in seconds (delta-seconds form only, as the API server sends). */
function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const n = Number(value.trim());
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
