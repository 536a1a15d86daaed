import { type CertificateSource, checkTlsMaterial } from "./certificate_source.ts";
import type { TlsMaterial } from "../x509/self_signed.ts";
import type { Logger } from "../log/logger.ts";

/** Options of {@linkcode serveTls}. */
export interface ServeTlsOptions {
  /** Interface to bind. */
  hostname: string;
  /** Port; 0 picks a free one, kept across certificate reloads. */
  port: number;
  /** The certificate, and when it changes. */
  certificates: CertificateSource;
  /** Answers requests. */
  handler: (request: Request) => Response | Promise<Response>;
  /** Answers a request whose handler threw. */
  onError: (error: unknown) => Response;
  /** Stops serving (in-flight requests finish). */
  signal: AbortSignal;
  /** Reload lines. */
  logger: Logger;
}

/** An HTTPS server that follows its certificate source. */
export interface TlsServer {
  /** The bound address. */
  readonly addr: Deno.NetAddr;
  /** Resolves once the last listener has closed and its requests finished, after `signal` aborted. */
  readonly finished: Promise<void>;
}

/**
 * Serves HTTPS with `Deno.serve` and the source's current certificate. `Deno.serve` cannot swap a certificate
 * in place (and SO_REUSEPORT on TLS listeners is unstable in Deno 2.9), so a new certificate restarts the
 * listener on the same address: the old one shuts down gracefully (requests in flight are answered), the new
 * one binds as soon as the port is free, typically within a few milliseconds, during which new connections
 * are refused. New certificates are taken in the order they arrive; one that fails {@linkcode checkTlsMaterial}
 * is logged and ignored.
 */
export function serveTls(options: ServeTlsOptions): TlsServer {
  const { hostname, signal, logger } = options;
  const listen = (port: number, material: TlsMaterial, stop: AbortSignal): Deno.HttpServer<Deno.NetAddr> =>
    Deno.serve({
      hostname,
      port,
      cert: material.cert,
      key: material.key,
      signal: stop,
      onListen: () => {},
      onError: options.onError,
      handler: options.handler,
    });
  let stopCurrent = new AbortController();
  let current = listen(options.port, options.certificates.current(), stopCurrent.signal);
  const addr = current.addr;
  const finishing: Promise<void>[] = [];
  let reloading = Promise.resolve();
  const reload = (material: TlsMaterial) => {
    reloading = reloading.then(async () => {
      if (signal.aborted) return;
      try {
        await checkTlsMaterial(material, "the new metrics certificate");
      } catch (error) {
        logger.error("Ignoring an unusable metrics certificate", { error: String(error) });
        return;
      }
      const old = current;
      finishing.push(old.shutdown().then(() => old.finished));
      stopCurrent = new AbortController();
      current = await bindWhenFree(() => listen(addr.port, material, stopCurrent.signal), signal, logger);
      logger.info("Serving the new metrics certificate", { address: `${addr.hostname}:${addr.port}` });
    }).catch((error) => logger.error("Cannot restart the metrics listener", { error }));
  };
  const unsubscribe = options.certificates.subscribe(reload);
  const finished = new Promise<void>((resolve) => {
    const stop = () => {
      unsubscribe();
      void reloading.then(async () => {
        stopCurrent.abort();
        await Promise.all([...finishing, current.finished]);
        resolve();
      });
    };
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
  return { addr, finished };
}

/** Retries `listen` while the old listener's port is still held: fast at first, then once a second. */
async function bindWhenFree(
  listen: () => Deno.HttpServer<Deno.NetAddr>,
  signal: AbortSignal,
  logger: Logger,
): Promise<Deno.HttpServer<Deno.NetAddr>> {
  for (let attempt = 0;; attempt++) {
    try {
      return listen();
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse) || signal.aborted) throw error;
      if (attempt === 200) logger.error("The metrics port is still in use; retrying every second", { error });
      await new Promise((resolve) => setTimeout(resolve, attempt < 200 ? 5 : 1_000));
    }
  }
}
