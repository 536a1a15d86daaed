import type { LogFields, Logger } from "../log/logger.ts";

/** One captured log line, with the fields of every `child()` above it merged in. */
export interface LogLine {
  /** "debug", "info", "warn" or "error". */
  readonly level: "debug" | "info" | "warn" | "error";
  /** The message. */
  readonly msg: string;
  /** Child fields and call fields, merged. */
  readonly fields: LogFields;
}

/**
 * A Logger that keeps its lines in memory, for assertions. Children share the parent's `lines`.
 *
 * @example Assert on what was logged
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryLogger } from "@kubeloop/kubeloop/testing";
 *
 * const logger = new MemoryLogger(); // give it where a Logger is taken
 * logger.child({ controller: "widgets" }).warn("Cannot sync", { reason: "Forbidden" });
 * assert.deepEqual(logger.messages("warn"), ["Cannot sync"]);
 * assert.deepEqual(logger.find(/sync/)?.fields, { controller: "widgets", reason: "Forbidden" });
 * ```
 */
export class MemoryLogger implements Logger {
  /** Every line logged through this logger or its children, in order. */
  readonly lines: LogLine[];
  readonly #base: LogFields;

  /** Appends to `lines` (a new array by default), adding `base` fields to every line. */
  constructor(lines: LogLine[] = [], base: LogFields = {}) {
    this.lines = lines;
    this.#base = base;
  }

  /** Records a debug line. */
  debug(msg: string, fields?: LogFields): void {
    this.#log("debug", msg, fields);
  }
  /** Records an info line. */
  info(msg: string, fields?: LogFields): void {
    this.#log("info", msg, fields);
  }
  /** Records a warn line. */
  warn(msg: string, fields?: LogFields): void {
    this.#log("warn", msg, fields);
  }
  /** Records an error line. */
  error(msg: string, fields?: LogFields): void {
    this.#log("error", msg, fields);
  }
  /** A logger adding `fields` to every line, writing to the same `lines`. */
  child(fields: LogFields): MemoryLogger {
    return new MemoryLogger(this.lines, { ...this.#base, ...fields });
  }

  /** The first line whose message matches (equal string, or RegExp test). */
  find(msg: string | RegExp): LogLine | undefined {
    return this.lines.find((l) => (typeof msg === "string" ? l.msg === msg : msg.test(l.msg)));
  }

  /** The messages of lines at `level` (all levels when omitted). */
  messages(level?: LogLine["level"]): string[] {
    return this.lines.filter((l) => level === undefined || l.level === level).map((l) => l.msg);
  }

  #log(level: LogLine["level"], msg: string, fields: LogFields | undefined): void {
    this.lines.push({ level, msg, fields: { ...this.#base, ...fields } });
  }
}
