/**
 * No bytes arrived on a watch for longer than its idle timeout (the heartbeat bound when the server
 * sends periodic bookmarks, else the server's `timeoutSeconds` plus a margin): the connection is presumed dead, so the watcher abandons it and resumes from the last
 * resourceVersion.
 */
export class WatchIdleTimeoutError extends Error {
  /** How long the watch was silent, in milliseconds. */
  readonly idleMs: number;

  /** Creates the error for a watch silent for `idleMs`. */
  constructor(idleMs: number) {
    super(`Watch received no bytes for ${idleMs} ms; reconnecting`);
    this.name = "WatchIdleTimeoutError";
    this.idleMs = idleMs;
  }
}
