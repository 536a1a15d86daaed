/**
 * Logging: the {@linkcode Logger} interface every layer takes (default {@linkcode noopLogger}), and
 * {@linkcode createLogger}, a structured JSON or text logger with levels and redaction of object data.
 * @module
 */
export { type LogFields, type Logger, noopLogger } from "./logger.ts";
export { createLogger, type LogFormat, type LoggerOptions, type LogLevel } from "./create_logger.ts";
