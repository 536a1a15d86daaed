import { type Clock, systemClock, type Timer } from "../time/clock.ts";
import {
  CertificateError,
  type CertificateSource,
  checkTlsMaterial,
  subscriber,
} from "./certificate_source.ts";
import type { TlsMaterial } from "../x509/self_signed.ts";
import { type Logger, noopLogger } from "../log/logger.ts";

/** Options of {@linkcode certificateFiles}. */
export interface CertificateFilesOptions {
  /** PEM certificate chain, e.g. `/tmp/k8s-metrics-server/metrics-certs/tls.crt`. */
  certFile: string;
  /** PEM private key, e.g. `.../tls.key`. */
  keyFile: string;
  /** Stops watching. */
  signal: AbortSignal;
  /**
   * How often the files are read again.
   * @default {10_000}
   */
  intervalMs?: number;
  /**
   * Reload and failure lines.
   * @default {noopLogger}
   */
  logger?: Logger;
  /**
   * Time source of the polling.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Reads a file.
   * @default {Deno.readTextFile}
   */
  readTextFile?: (path: string) => Promise<string>;
}

/**
 * A certificate read from two PEM files and read again every `intervalMs`; listeners get the new pair when
 * the contents changed and the pair is valid (the key matches the certificate). Polling the contents,
 * rather than watching inodes, follows the way Kubernetes updates Secret volumes (an atomic symlink swap)
 * and cert-manager renewals. A pair that is unreadable, half-written or mismatched is logged and skipped:
 * the server keeps the last good certificate. The first read must succeed: it throws
 * {@linkcode CertificateError} naming the file.
 */
export async function certificateFiles(options: CertificateFilesOptions): Promise<CertificateSource> {
  const { certFile, keyFile, signal } = options;
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? noopLogger).child({ certFile, keyFile });
  const read = options.readTextFile ?? ((path: string) => Deno.readTextFile(path));
  const intervalMs = options.intervalMs ?? 10_000;
  const source = `${certFile} + ${keyFile}`;
  const load = async (): Promise<TlsMaterial> => {
    const [cert, key] = await Promise.all([certFile, keyFile].map(async (path) => {
      try {
        return await read(path);
      } catch (cause) {
        const why = cause instanceof Error ? cause.name : "error";
        throw new CertificateError(`Cannot read metrics certificate file "${path}" (${why})`, path, {
          cause,
        });
      }
    }));
    const material = { cert: cert!, key: key! };
    const expires = await checkTlsMaterial(material, source);
    if (expires <= clock.now()) {
      logger.warn("The metrics certificate has expired", { expired: new Date(expires) });
    }
    return material;
  };
  let material = await load();
  const listeners = new Set<(m: TlsMaterial) => void>();
  let timer: Timer | undefined;
  const poll = async () => {
    try {
      const next = await load();
      if (next.cert !== material.cert || next.key !== material.key) {
        material = next;
        logger.info("Reloaded the metrics certificate");
        for (const listener of listeners) listener(material);
      }
    } catch (error) {
      logger.warn("Cannot reload the metrics certificate; keeping the previous one", {
        error: String(error),
      });
    }
    if (!signal.aborted) timer = clock.setTimer(poll, intervalMs);
  };
  if (!signal.aborted) {
    timer = clock.setTimer(poll, intervalMs);
    signal.addEventListener("abort", () => timer?.cancel(), { once: true });
  }
  return { current: () => material, subscribe: subscriber(listeners) };
}
