/**
 * A watch was still open well past its `timeoutSeconds`, when the server would have ended it: the
 * connection is presumed dead (stalled without closing, so nothing, not even the end, gets through), and
 * the watcher abandons it and resumes from the last resourceVersion.
 */
export class WatchDeadlineError extends Error {
  /** How long after it was opened the watch was given up, in milliseconds. */
  readonly openMs: number;

  /** Creates the error for a watch given up `openMs` after it was opened. */
  constructor(openMs: number) {
    super(`Watch still open ${openMs} ms after it was opened, past its timeoutSeconds; reconnecting`);
    this.name = "WatchDeadlineError";
    this.openMs = openMs;
  }
}
