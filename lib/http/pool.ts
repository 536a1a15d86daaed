import type { Connection } from "./connection.ts";
import { type Clock, systemClock } from "../time/clock.ts";

/** Limits for a ConnectionPool. */
export interface ConnectionPoolOptions {
  /** Idle connections kept per origin; extra ones are closed. */
  readonly maxIdlePerOrigin: number;
  /** An idle connection older than this is closed instead of reused. */
  readonly idleTimeoutMs: number;
  /**
   * @default {systemClock}
   */
  readonly clock?: Clock;
  /**
   * Told when an idle connection received bytes that no request asked for (and was closed).
   * @default {nothing}
   */
  readonly onUnsolicited?: (origin: string, bytes: number) => void;
}

/**
 * Idle keep-alive connections per origin, reused most-recent first. Expiry is lazy: expired
 * connections are closed when the origin is next used or `close()` runs, so the pool owns no timers.
 * Only connections whose response was read to the end and that are healthy may be `put` back.
 * Each idle connection is watched (`Connection.watchIdle`): one that receives a byte or is closed
 * by the server while idle closes at once and is never handed out.
 */
export class ConnectionPool {
  readonly #idle = new Map<string, Connection[]>();
  readonly #max: number;
  readonly #idleTimeoutMs: number;
  readonly #clock: Clock;
  // Drops a connection its idle watch closed, and reports unsolicited bytes.
  readonly #onUnsolicited: (bytes: number, conn: Connection) => void;
  #closed = false;

  /** Creates an empty pool. */
  constructor(options: ConnectionPoolOptions) {
    this.#max = options.maxIdlePerOrigin;
    this.#idleTimeoutMs = options.idleTimeoutMs;
    this.#clock = options.clock ?? systemClock;
    const report = options.onUnsolicited;
    this.#onUnsolicited = (bytes, conn) => {
      const list = this.#idle.get(conn.origin);
      const at = list?.indexOf(conn) ?? -1;
      if (at >= 0) list!.splice(at, 1);
      if (list?.length === 0) this.#idle.delete(conn.origin);
      if (bytes > 0) report?.(conn.origin, bytes);
    };
  }

  /** Number of idle connections held, all origins together. */
  get size(): number {
    let n = 0;
    for (const list of this.#idle.values()) n += list.length;
    return n;
  }

  /** Takes an idle, unexpired connection to `origin`, if any. */
  take(origin: string): Connection | undefined {
    const list = this.#idle.get(origin);
    if (list === undefined) return undefined;
    this.#expire(list);
    let conn = list.pop();
    while (conn?.closed) conn = list.pop();
    if (list.length === 0) this.#idle.delete(origin);
    return conn;
  }

  /** Returns a connection for reuse, or closes it if the pool is closed or full. */
  put(conn: Connection): void {
    if (this.#closed || conn.closed || this.#max <= 0) {
      conn.close();
      return;
    }
    let list = this.#idle.get(conn.origin);
    if (list === undefined) this.#idle.set(conn.origin, list = []);
    this.#expire(list);
    conn.idleSince = this.#clock.now();
    if (list.length >= this.#max) list.shift()?.close();
    list.push(conn);
    conn.watchIdle((bytes) => this.#onUnsolicited(bytes, conn));
  }

  /** Closes every idle connection; later `put`s close their connection. */
  close(): void {
    this.#closed = true;
    for (const list of this.#idle.values()) for (const conn of list) conn.close();
    this.#idle.clear();
  }

  #expire(list: Connection[]): void {
    const cutoff = this.#clock.now() - this.#idleTimeoutMs;
    let stale = 0;
    while (stale < list.length && (list[stale]!.idleSince <= cutoff || list[stale]!.closed)) {
      list[stale]!.close();
      stale++;
    }
    if (stale > 0) list.splice(0, stale);
  }
}
