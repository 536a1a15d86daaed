/**
 * A watch closed cleanly, but within a second of opening and without any event, not even a
 * bookmark. A healthy watch ends on its `timeoutSeconds` after minutes; one that ends at once points
 * at a server or proxy that answers 200 and hangs up. Treating it as a failure (as client-go does)
 * lets the backoff space the reconnects instead of looping.
 */
export class WatchEndedEarlyError extends Error {
  /** How long the watch was open, in milliseconds. */
  readonly openMs: number;

  /** Creates the error for a watch that was open for `openMs`. */
  constructor(openMs: number) {
    super(`Watch closed without any event after ${openMs} ms; reconnecting after a backoff`);
    this.name = "WatchEndedEarlyError";
    this.openMs = openMs;
  }
}
