import type { LogFields, Logger } from "../../lib/observe/types.ts";

/** One captured log line. */
export interface Line {
  level: string;
  msg: string;
  fields: LogFields;
}

/** A logger that keeps lines (with inherited child fields) in `lines`. */
export function memoryLogger(lines: Line[], base: LogFields = {}): Logger {
  const log = (level: string) => (msg: string, fields?: LogFields) =>
    void lines.push({ level, msg, fields: { ...base, ...fields } });
  return {
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    child: (fields) => memoryLogger(lines, { ...base, ...fields }),
  };
}
