/** Why a watch line could not be decoded. */
export type WatchDecodeErrorReason =
  /** The line is not valid JSON. */
  | "invalidJson"
  /** Valid JSON, but not a watch event (missing or unknown `type`, missing `object`). */
  | "notAnEvent"
  /** The line is longer than `maxLineBytes`. */
  | "lineTooLong"
  /** The stream ended inside a line that does not parse. */
  | "truncated";

/**
 * A watch stream line that is not a watch event. The decoder surfaces it (the stream errors) rather
 * than dropping the line, because a skipped event means a stale cache; the watcher reports it and
 * resumes from the last good resourceVersion.
 */
export class WatchDecodeError extends SyntaxError {
  /** What was wrong with the line. */
  readonly reason: WatchDecodeErrorReason;
  /** 1-based number of the offending line in the stream. */
  readonly lineNumber: number;
  /** The start of the offending line (at most 200 characters), for logs. */
  readonly excerpt: string;

  /** Creates the error; `detail` completes the message. */
  constructor(
    reason: WatchDecodeErrorReason,
    lineNumber: number,
    detail: string,
    options?: { excerpt?: string; cause?: unknown },
  ) {
    super(`Cannot decode watch event on line ${lineNumber}: ${detail}`, { cause: options?.cause });
    this.name = "WatchDecodeError";
    this.reason = reason;
    this.lineNumber = lineNumber;
    this.excerpt = (options?.excerpt ?? "").slice(0, 200);
  }
}
