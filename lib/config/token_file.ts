import type { Clock } from "../time/clock.ts";
import { systemClock } from "../time/clock.ts";
import { type Logger, noopLogger } from "../log/logger.ts";
import { ConfigError } from "./config_error.ts";
import type { Credentials, CredentialSource } from "./types.ts";
import { defaultReadTextFile, messageOf, type ReadTextFile } from "./_private.ts";

/** Options for {@linkcode TokenFileSource}. */
export interface TokenFileSourceOptions {
  /**
   * Reads the token file.
   * @default {Deno.readTextFile}
   */
  readTextFile?: (path: string) => Promise<string>;
  /**
   * Decides when the cached token is old.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * How long a token read from the file is reused before reading it again.
   * @default {60_000}
   */
  refreshMs?: number;
  /**
   * Receives a warning when a re-read fails and the previous token is kept.
   * @default {a logger that drops everything}
   */
  logger?: Logger;
  /**
   * The kubeconfig field that named the file, for error messages.
   * @default {the file path alone}
   */
  origin?: { readonly file: string; readonly field: string };
}

/**
 * A bearer token read from a file that something else rotates (projected service-account
 * tokens, kubeconfig `tokenFile`). The file is read on first use, again once the token is
 * `refreshMs` old, and again on the next `get()` after `invalidate()` (a 401).
 *
 * If a periodic re-read fails, the previous token is kept (with a warning) and the read is
 * retried on the next `get()`; after `invalidate()` a failed read rejects, since the old token
 * is known to be bad. Concurrent `get()` calls share one read.
 */
export class TokenFileSource implements CredentialSource {
  /** The token file's path. */
  readonly path: string;
  #read: ReadTextFile;
  #clock: Clock;
  #refreshMs: number;
  #logger: Logger;
  #origin: { readonly file: string; readonly field: string } | undefined;
  #token: string | undefined;
  #readAt = 0;
  #stale = true;
  #inflight: Promise<Credentials> | undefined;

  /** Reads nothing yet; the first `get()` reads `path`. */
  constructor(path: string, options: TokenFileSourceOptions = {}) {
    this.path = path;
    this.#read = options.readTextFile ?? defaultReadTextFile;
    this.#clock = options.clock ?? systemClock;
    this.#refreshMs = options.refreshMs ?? 60_000;
    this.#logger = options.logger ?? noopLogger;
    this.#origin = options.origin;
  }

  /** The current token, reading the file when the cached one is old or invalidated. */
  get(signal?: AbortSignal): Promise<Credentials> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const token = this.#token;
    if (token !== undefined && !this.#stale && this.#clock.now() - this.#readAt < this.#refreshMs) {
      return Promise.resolve({ token });
    }
    this.#inflight ??= this.#reload().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /** Forgets the cached token, so the next `get()` reads the file. */
  invalidate(): void {
    this.#stale = true;
  }

  async #reload(): Promise<Credentials> {
    let token: string;
    try {
      token = (await this.#read(this.path)).trim();
      if (token === "") throw new Error("the file is empty");
    } catch (cause) {
      const previous = this.#token;
      if (previous !== undefined && !this.#stale) {
        this.#logger.warn("re-reading the token file failed; keeping the previous token", {
          path: this.path,
          error: messageOf(cause),
        });
        return { token: previous };
      }
      throw this.#error(cause);
    }
    this.#token = token;
    this.#readAt = this.#clock.now();
    this.#stale = false;
    return { token };
  }

  #error(cause: unknown): ConfigError {
    const origin = this.#origin;
    const where = origin ? ` (field "${origin.field}" of kubeconfig "${origin.file}")` : "";
    return new ConfigError(`Cannot read token file "${this.path}"${where}: ${messageOf(cause)}`, {
      reason: "Unreadable",
      file: origin?.file ?? this.path,
      ...(origin ? { field: origin.field } : {}),
      cause,
    });
  }
}
