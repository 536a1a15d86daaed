/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/** The project's logging interface. Only logger implementations write to the console. */
export interface Logger {
  /** Detail for diagnosing problems; off by default. */
  debug(message: string, fields?: LogFields): void;
  /** Normal operation worth a line: start-up, sync, leadership. */
  info(message: string, fields?: LogFields): void;
  /** Something unexpected that the program recovers from. */
  warn(message: string, fields?: LogFields): void;
  /** A failure that needs attention. */
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

/** A logger that drops everything; the default for library code. */
export const noopLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return noopLogger;
  },
};
