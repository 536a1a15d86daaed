// The implementation is lib/testing's MemoryLogger; these names stay for the tests that use them.
import type { Logger } from "../../lib/log/logger.ts";
import { type LogLine, MemoryLogger } from "../../lib/testing/mod.ts";

/** One captured log line. */
export type Line = LogLine;

/** A logger that keeps lines (with inherited child fields) in `lines`. */
export function memoryLogger(lines: Line[], base: Record<string, unknown> = {}): Logger {
  return new MemoryLogger(lines, base);
}
