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
 *
 * The message and fields never carry the line's content (it may be a Secret): only its number, its
 * length and what was wrong with it.
 */
export class WatchDecodeError extends SyntaxError {
  /** What was wrong with the line. */
  readonly reason: WatchDecodeErrorReason;
  /** 1-based number of the offending line in the stream. */
  readonly lineNumber: number;

  /** Creates the error; `detail` completes the message and must not quote the line. */
  constructor(reason: WatchDecodeErrorReason, lineNumber: number, detail: string) {
    super(`Cannot decode watch event on line ${lineNumber}: ${detail}`);
    this.name = "WatchDecodeError";
    this.reason = reason;
    this.lineNumber = lineNumber;
  }
}
