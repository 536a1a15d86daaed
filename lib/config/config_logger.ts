/**
 * The part of the project Logger (lib/observe) that config loading uses: it only ever warns.
 * Any `Logger` satisfies it; a narrow type keeps lib/config independent of the logger's shape.
 */
export interface ConfigLogger {
  /** Reports a problem that loading worked around (e.g. keeping the previous token). */
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** A ConfigLogger that drops everything; the default. */
export const silentConfigLogger: ConfigLogger = { warn() {} };
