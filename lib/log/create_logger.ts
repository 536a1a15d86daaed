import { type Clock, systemClock } from "../time/clock.ts";
import { isSecretName, REDACTED, toLogValue } from "./log_value.ts";
import type { LogFields, Logger } from "./logger.ts";

/** Severity of a log line, from the most verbose. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** How lines are written: one JSON object per line, or human-readable text for terminals. */
export type LogFormat = "json" | "text";

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /**
   * Lines below this level are dropped. Error stacks are only written at "debug".
   * @default {"info"}
   */
  level?: LogLevel;
  /**
   * Line format: JSON for machines, text for terminals.
   * @default {"json"}
   */
  format?: LogFormat;
  /**
   * Receives each finished line (without the newline).
   * @default {a synchronous write to stderr}
   */
  write?: (line: string) => void;
  /**
   * Source of the timestamps.
   * @default {systemClock}
   */
  clock?: Clock;
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const RESERVED = new Set(["ts", "level", "msg"]);

/**
 * Creates a structured logger. JSON lines look like
 * `{"ts":"2026-01-01T00:00:00.000Z","level":"info","msg":"synced","controller":"foo"}`; text lines
 * like `2026-01-01T00:00:00.000Z INFO  synced controller=foo`.
 *
 * Fields named like credentials (token, password, secret, key-data, certificate-data,
 * authorization) are written as "[redacted]" at any depth. Errors are written as
 * `{ name, message, cause? }`, with the stack only when the level is "debug". A field named
 * `ts`, `level` or `msg` is written as `_ts`, `_level`, `_msg`.
 *
 * @example JSON lines with fields, and credentials redacted
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLogger } from "@kubeloop/kubeloop";
 *
 * const lines: string[] = [];
 * const logger = createLogger({ level: "info", write: (line) => lines.push(line) }); // default: stderr
 * const log = logger.child({ controller: "widgets" });
 * log.info("Synced", { widgets: 3, token: "s3cr3t" });
 * log.debug("Below the level: dropped");
 * assert.equal(lines.length, 1);
 * const { msg, controller, widgets, token } = JSON.parse(lines[0]!);
 * assert.deepEqual({ msg, controller, widgets, token }, {
 *   msg: "Synced",
 *   controller: "widgets",
 *   widgets: 3,
 *   token: "[redacted]",
 * });
 * ```
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? "info";
  const format = options.format ?? "json";
  if (!Object.hasOwn(RANK, level)) {
    throw new RangeError(`Invalid log level "${level}": expected debug, info, warn or error`);
  }
  if (format !== "json" && format !== "text") {
    throw new RangeError(`Invalid log format "${format}": expected json or text`);
  }
  const sink: Sink = {
    minRank: RANK[level],
    stacks: level === "debug",
    format,
    write: options.write ?? writeStderr,
    clock: options.clock ?? systemClock,
  };
  return new StructuredLogger(sink, {});
}

interface Sink {
  minRank: number;
  stacks: boolean;
  format: LogFormat;
  write: (line: string) => void;
  clock: Clock;
}

class StructuredLogger implements Logger {
  #sink: Sink;
  #fields: LogFields;

  constructor(sink: Sink, fields: LogFields) {
    this.#sink = sink;
    this.#fields = fields;
  }

  debug(message: string, fields?: LogFields): void {
    this.#log("debug", message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.#log("info", message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.#log("warn", message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.#log("error", message, fields);
  }
  child(fields: LogFields): Logger {
    return new StructuredLogger(this.#sink, { ...this.#fields, ...fields });
  }

  #log(level: LogLevel, message: string, fields: LogFields | undefined): void {
    const sink = this.#sink;
    if (RANK[level] < sink.minRank) return;
    const ts = new Date(sink.clock.now()).toISOString();
    const merged: Record<string, unknown> = {};
    for (const [key, value] of Object.entries({ ...this.#fields, ...fields })) {
      if (value === undefined) continue;
      const name = RESERVED.has(key) ? `_${key}` : key;
      merged[name] = isSecretName(key) ? REDACTED : toLogValue(value, { stacks: sink.stacks });
    }
    sink.write(
      sink.format === "json"
        ? JSON.stringify({ ts, level, msg: message, ...merged })
        : textLine(ts, level, message, merged),
    );
  }
}

function textLine(ts: string, level: LogLevel, message: string, fields: Record<string, unknown>): string {
  let line = `${ts} ${level.toUpperCase().padEnd(5)} ${oneLine(message)}`;
  const stacks: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (isErrorShape(value)) {
      line += ` ${key}=${quote(describeError(value))}`;
      if (typeof value.stack === "string") stacks.push(value.stack);
    } else {
      line += ` ${key}=${typeof value === "string" ? quote(value) : JSON.stringify(value)}`;
    }
  }
  // Stacks (debug level only) go on their own lines after the record.
  return [line, ...stacks].join("\n");
}

interface ErrorShape {
  name: string;
  message: string;
  cause?: unknown;
  stack?: unknown;
}

function isErrorShape(value: unknown): value is ErrorShape {
  return typeof value === "object" && value !== null && "name" in value && "message" in value &&
    typeof value.name === "string" && typeof value.message === "string";
}

function describeError(error: ErrorShape): string {
  const text = `${error.name}: ${error.message}`;
  if (error.cause === undefined) return text;
  const cause = isErrorShape(error.cause) ? describeError(error.cause) : JSON.stringify(error.cause);
  return `${text} (caused by ${cause})`;
}

function quote(text: string): string {
  return /^[^\s"=\\]+$/.test(text) && text.length > 0 ? text : JSON.stringify(text);
}

function oneLine(text: string): string {
  return text.replaceAll("\r", "\\r").replaceAll("\n", "\\n");
}

const encoder = new TextEncoder();

function writeStderr(line: string): void {
  const bytes = encoder.encode(line + "\n");
  let written = 0;
  while (written < bytes.length) written += Deno.stderr.writeSync(bytes.subarray(written));
}
