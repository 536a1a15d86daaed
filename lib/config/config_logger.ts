/**
 * The part of the project Logger (lib/observe) that config loading uses: warnings, and debug lines
 * for what may hold sensitive text (an exec plugin's stderr). Any `Logger` satisfies it; a narrow
 * type keeps lib/config independent of the logger's shape.
 */
export interface ConfigLogger {
  /** Reports a problem that loading worked around (e.g. keeping the previous token). */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** Detail shown only when debug logging is on; absent means it is dropped. */
  debug?(message: string, fields?: Record<string, unknown>): void;
}

/** A ConfigLogger that drops everything; the default. */
export const silentConfigLogger: ConfigLogger = { warn() {} };
