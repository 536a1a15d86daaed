import { type Clock, systemClock } from "../time/clock.ts";
import { type InFlightStats, noopQueueMetrics, type QueueMetrics } from "./queue_metrics.ts";
import { PriorityFifo } from "./_priority_fifo.ts";

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  /**
   * Measures queue latency and work duration.
   * @default {systemClock}
   */
  clock?: Clock;
  /**
   * Hooks called as the queue changes.
   * @default {noopQueueMetrics}
   */
  metrics?: QueueMetrics;
  /**
   * A name for logs and metrics.
   * @default {""}
   */
  name?: string;
}

/** Options of {@link WorkQueue.shutDown}. */
export interface ShutDownOptions {
  /**
   * Wait until every item handed out by `get` has been passed to `done`.
   * @default {false}
   */
  drain?: boolean;
}

/** Options of {@link WorkQueue.add} (and of the delayed and rate-limited adds built on it). */
export interface AddOptions {
  /**
   * Higher is handed out first; equal priorities keep the order of their adds. Adding an item that
   * is already waiting raises its priority if this one is higher, never lowers it. Controllers give
   * changes seen from the initial list and from resyncs {@linkcode LOW_PRIORITY}, so a real change
   * waits behind none of them.
   * @default {0}
   */
  priority?: number;
}

/** The priority of work that can wait: the initial list's objects, resyncs. */
export const LOW_PRIORITY: number = -100;

/** Options of {@link WorkQueue.get}. */
export interface GetOptions {
  /**
   * Stops waiting: the returned promise rejects with `signal.reason`.
   * @default {never aborted}
   */
  signal?: AbortSignal | undefined;
}

interface Waiter<T> {
  resolve(item: T | undefined): void;
}

/**
 * A queue of keys for controllers, with client-go's workqueue guarantees:
 *
 * - **Fair**: items are handed out in the order they were added (FIFO) within a priority, higher
 *   priorities first (all items have priority 0 unless `add` says otherwise), and waiting `get`
 *   callers are served in the order they called.
 * - **Stingy**: an item is never handed to two workers at once, and adding an item that is already
 *   waiting does nothing (the adds collapse into one). Items are compared like `Map` keys: strings
 *   by value, objects by identity.
 * - **Re-add while processing**: an item added while a worker processes it is not handed out again
 *   until that worker calls `done`; then it is queued once more, so the latest change is seen.
 * - **Shutdown**: after `shutDown`, adds are ignored, items still waiting are dropped (a controller
 *   is level-triggered: the next start resyncs everything) and `get` resolves `undefined`.
 *   `shutDown({ drain: true })` resolves once every handed-out item is `done`.
 *
 * It does not guarantee that an item is processed exactly once per add, nor any order between an
 * item that is re-queued by `done` and items added meanwhile (it goes to the back).
 *
 * @example Adds collapse, and a key changed while it is processed runs again after done
 * ```ts
 * import assert from "node:assert/strict";
 * import { WorkQueue } from "@kubeloop/kubeloop";
 *
 * await using queue = new WorkQueue<string>();
 * queue.add("shop/a");
 * queue.add("shop/b");
 * queue.add("shop/a"); // already waiting: nothing new
 * assert.equal(queue.len(), 2);
 * const key = await queue.get(); // "shop/a", handed to one worker only
 * queue.add("shop/a"); // changed meanwhile: queued again once the worker is done
 * assert.equal(queue.len(), 1);
 * queue.done(key!);
 * assert.deepEqual([await queue.get(), await queue.get()], ["shop/b", "shop/a"]);
 * ```
 */
export class WorkQueue<T = string> {
  /** The name given in the options. */
  readonly name: string;
  /** The queue's clock, shared with subclasses for timing. */
  protected readonly clock: Clock;
  /** The metrics hooks, shared with subclasses. */
  protected readonly metrics: QueueMetrics;
  /** Entries of the items waiting to be handed out, by priority (stale ones included). */
  readonly #waiting = new PriorityFifo<T>();
  /** How many items wait: dirty and not being processed. */
  #waitingCount = 0;
  /** Whether an entry taken from the FIFOs is the item's current one (see PriorityFifo). */
  readonly #current = (item: T, priority: number): boolean =>
    this.#dirty.has(item) && !this.#processing.has(item) &&
    (this.#dirtyPriority.size === 0 ? 0 : this.#dirtyPriority.get(item) ?? 0) === priority;
  /** Items that need processing, with the time of the add that made them dirty. */
  #dirty = new Map<T, number>();
  /** The priority of dirty items whose priority is not 0. */
  #dirtyPriority = new Map<T, number>();
  /** Items handed out and not yet done, with the time they were handed out. */
  #processing = new Map<T, number>();
  /** The priority of items handed out at a priority other than 0. */
  #processingPriority = new Map<T, number>();
  #waiters: Waiter<T>[] = [];
  #shuttingDown = false;
  #drained: (() => void)[] = [];

  /** Creates an empty queue. */
  constructor(options: WorkQueueOptions = {}) {
    this.name = options.name ?? "";
    this.clock = options.clock ?? systemClock;
    this.metrics = options.metrics ?? noopQueueMetrics;
    this.metrics.trackInFlight(() => this.#inFlight());
    this.metrics.depth(0);
  }

  /**
   * Marks `item` as needing processing. Ignored after shutdown; an item already waiting stays where it
   * is, unless this add's priority is higher (see {@linkcode AddOptions.priority}).
   * @throws {RangeError} for a priority that is not a finite number.
   */
  add(item: T, options?: AddOptions): void {
    // The common case stays small enough to inline: no priorities in play and the item already dirty.
    if (
      options === undefined && this.#dirtyPriority.size === 0 && (this.#shuttingDown || this.#dirty.has(item))
    ) {
      return;
    }
    this.#add(item, options?.priority ?? 0);
  }

  /** The number of items waiting to be handed out. */
  len(): number {
    return this.#waitingCount;
  }

  /**
   * Waits for the next item. Resolves `undefined` once the queue is shut down. The caller owns the
   * item until it calls `done(item)`.
   */
  get(options: GetOptions = {}): Promise<T | undefined> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#shuttingDown) return Promise.resolve(undefined);
    if (this.len() > 0) return Promise.resolve(this.#take());
    return new Promise<T | undefined>((resolve, reject) => {
      const onAbort = () => {
        const at = this.#waiters.indexOf(waiter);
        if (at >= 0) this.#waiters.splice(at, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter<T> = {
        resolve: (item) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(item);
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * The priority `item` was handed out at (the highest of the adds it waited for), while it is being
   * processed; undefined once it is `done` or when it was not handed out. A controller re-adds a failed
   * item at it, so a retry of a real change stays ahead of initial work, and initial work stays behind.
   */
  handedOutPriority(item: T): number | undefined {
    if (!this.#processing.has(item)) return undefined;
    return this.#processingPriority.size === 0 ? 0 : this.#processingPriority.get(item) ?? 0;
  }

  /**
   * Marks the processing of `item` as finished; re-queues it if it was added meanwhile. Ignored for
   * an item that is not being processed (e.g. `done` called twice).
   */
  done(item: T): void {
    const started = this.#processing.get(item);
    if (started === undefined) return; // not handed out (or done twice): nothing to finish
    this.#processing.delete(item);
    if (this.#processingPriority.size > 0) this.#processingPriority.delete(item);
    this.metrics.workDuration(seconds(this.clock.now() - started));
    if (this.#dirty.has(item) && !this.#shuttingDown) this.#push(item, this.#dirtyPriority.get(item) ?? 0);
    if (this.#processing.size === 0 && this.#shuttingDown) {
      for (const resolve of this.#drained.splice(0)) resolve();
    }
  }

  /**
   * Stops the queue: waiting and future `get` calls resolve `undefined`, adds are ignored and
   * waiting items are dropped. With `drain`, resolves once every handed-out item is `done`.
   */
  shutDown(options: ShutDownOptions = {}): Promise<void> {
    if (!this.#shuttingDown) {
      this.#shuttingDown = true;
      this.#waiting.clear();
      this.#waitingCount = 0;
      this.#dirty.clear();
      this.#dirtyPriority.clear();
      this.metrics.depth(0);
      for (const waiter of this.#waiters.splice(0)) waiter.resolve(undefined);
    }
    if (!options.drain || this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /** True once `shutDown` has been called. */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Shuts the queue down without draining. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.shutDown();
  }

  #add(item: T, priority: number): void {
    if (priority !== 0 && !Number.isFinite(priority)) {
      throw new RangeError(`Invalid queue priority ${priority}: expected a finite number`);
    }
    if (this.#shuttingDown) return;
    if (this.#dirty.has(item)) {
      // The common case first: no item has a priority of its own, so this one is at 0.
      if (priority <= 0 && this.#dirtyPriority.size === 0) return;
      if (priority <= (this.#dirtyPriority.get(item) ?? 0)) return;
      this.#dirtyPriority.set(item, priority);
      // Waiting: move it up now. Processing: done() queues it at the raised priority.
      if (!this.#processing.has(item)) this.#waiting.push(item, priority);
      return;
    }
    this.#dirty.set(item, this.clock.now());
    if (priority !== 0) this.#dirtyPriority.set(item, priority);
    this.metrics.added();
    if (this.#processing.has(item)) return; // queued again by done()
    this.#push(item, priority);
  }
  #push(item: T, priority: number): void {
    const waiter = this.#waiters.shift();
    if (waiter) {
      // Someone is waiting, so the queue is empty: hand the item over directly.
      waiter.resolve(this.#start(item));
      return;
    }
    this.#waiting.push(item, priority);
    this.#waitingCount++;
    this.metrics.depth(this.len());
  }

  #take(): T {
    const item = this.#waiting.shift(this.#current) as T;
    this.#waitingCount--;
    this.metrics.depth(this.len());
    return this.#start(item);
  }

  #start(item: T): T {
    const now = this.clock.now();
    const addedAt = this.#dirty.get(item) ?? now;
    this.#dirty.delete(item);
    if (this.#dirtyPriority.size > 0) {
      const priority = this.#dirtyPriority.get(item);
      if (priority !== undefined) {
        this.#dirtyPriority.delete(item);
        this.#processingPriority.set(item, priority);
      }
    }
    this.#processing.set(item, now);
    this.metrics.queueLatency(seconds(now - addedAt));
    return item;
  }

  #inFlight(): InFlightStats {
    const now = this.clock.now();
    let unfinished = 0;
    let longest = 0;
    for (const started of this.#processing.values()) {
      const elapsed = seconds(now - started);
      unfinished += elapsed;
      if (elapsed > longest) longest = elapsed;
    }
    return { unfinishedWorkSeconds: unfinished, longestRunningProcessorSeconds: longest };
  }
}

function seconds(ms: number): number {
  return Math.max(0, ms) / 1000;
}
