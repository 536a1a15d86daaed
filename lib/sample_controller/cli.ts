import { ConfigError } from "../config/mod.ts";
import { CertificateError } from "../observe/mod.ts";
import { ShardConfigError } from "../shard/mod.ts";
import { createLogger } from "../log/create_logger.ts";
import { type Logger } from "../log/logger.ts";
import type { ControllerFlags, LogFormat, LogLevel } from "./controller_flags.ts";
import { FlagError, parseFlags, usage } from "./flags.ts";
import { assertNever } from "../_internal/assert_never.ts";

/** What {@linkcode cli} needs from the outside world. */
export interface CliOptions {
  /** Printed by `--version`. */
  version: string;
  /**
   * Program name in the usage text.
   * @default {"kubeloop-sample-controller"}
   */
  program?: string;
  /** Aborted on the first SIGTERM/SIGINT. */
  signal: AbortSignal;
  /** Runs the controller until the signal aborts. */
  run: (flags: ControllerFlags, options: { signal: AbortSignal; logger: Logger }) => Promise<void>;
  /** Writes --help/--version output (stdout) and bad-flag messages (stderr), before a logger exists. */
  write: (stream: "stdout" | "stderr", text: string) => void;
  /**
   * Builds the logger from --log-level and --log-format.
   * @default {createLogger}
   */
  createLogger?: (options: { level: LogLevel; format: LogFormat }) => Logger;
}

/**
 * Exit codes: 0 clean shutdown (or help/version), 1 runtime failure, 2 bad flag or configuration (including
 * unusable metrics certificate files).
 */
export type ExitCode = 0 | 1 | 2;

/**
 * The whole command: parse flags, then run until shutdown. Returns the exit code instead of exiting, so
 * it is testable; `main.ts` exits with it. Flag errors are written as one plain line (the log format is not
 * known yet); later failures go through the logger.
 */
export async function cli(args: readonly string[], options: CliOptions): Promise<ExitCode> {
  const program = options.program ?? "kubeloop-sample-controller";
  let flags: ControllerFlags;
  try {
    const parsed = parseFlags(args);
    switch (parsed.kind) {
      case "help":
        options.write("stdout", usage(program));
        return 0;
      case "version":
        options.write("stdout", `${program} ${options.version}\n`);
        return 0;
      case "run":
        flags = parsed.flags;
        break;
      default:
        return assertNever(parsed);
    }
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    options.write("stderr", `${program}: ${error.message}\n`);
    return 2;
  }
  const logger = (options.createLogger ?? createLogger)({ level: flags.logLevel, format: flags.logFormat });
  logger.info("Starting", {
    version: options.version,
    workers: flags.workers,
    leaderElect: flags.leaderElect,
    ...(flags.shards === undefined ? {} : { shards: flags.shards, shardGroup: flags.shardGroup }),
  });
  try {
    await options.run(flags, { signal: options.signal, logger });
  } catch (error) {
    if (error instanceof ConfigError) {
      logger.error(error.message, { reason: error.reason });
      return 2;
    }
    if (error instanceof ShardConfigError) {
      logger.error(error.message, { reason: error.reason });
      return 2;
    }
    if (error instanceof CertificateError) {
      logger.error(error.message, { source: error.source });
      return 2;
    }
    if (options.signal.aborted && isAbortReason(error, options.signal)) {
      logger.info("Stopped");
      return 0;
    }
    logger.error("Fatal error", { error });
    return 1;
  }
  logger.info("Stopped");
  return 0;
}

function isAbortReason(error: unknown, signal: AbortSignal): boolean {
  return error === signal.reason || (error instanceof DOMException && error.name === "AbortError");
}
