import type { Timer } from "../time/clock.ts";
import { type AddOptions, type ShutDownOptions, WorkQueue, type WorkQueueOptions } from "./work_queue.ts";

/** Options of {@link DelayingQueue}. */
export type DelayingQueueOptions = WorkQueueOptions;

interface Scheduled<T> {
  item: T;
  at: number;
  seq: number;
  priority: number;
}

/**
 * A {@link WorkQueue} that can also add an item later. Repeated `addAfter` calls for one item keep
 * the earliest due time (and the highest priority they gave). Only one timer is pending at a time, for the earliest due item; it is
 * cancelled on shutdown, so a shut-down queue keeps nothing alive. Due items are added in order of
 * their due time (ties in the order they were scheduled).
 */
export class DelayingQueue<T = string> extends WorkQueue<T> {
  // A binary min-heap ordered by (at, seq). Superseded entries stay in it and are skipped when
  // popped: #due maps each item to its current entry.
  #heap: Scheduled<T>[] = [];
  #due = new Map<T, Scheduled<T>>();
  #seq = 0;
  #timer: Timer | undefined;
  #timerAt = Infinity;

  /** Adds `item` after `ms` milliseconds (at once when `ms <= 0`), with `options`. Ignored after shutdown. */
  addAfter(item: T, ms: number, options: AddOptions = {}): void {
    if (Number.isNaN(ms) || ms === Infinity) {
      throw new RangeError(`Cannot schedule a queue item after ${ms} ms: expected a finite number`);
    }
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(item, options);
      return;
    }
    const at = this.clock.now() + ms;
    const current = this.#due.get(item);
    const priority = Math.max(options.priority ?? 0, current?.priority ?? -Infinity);
    if (current && current.at <= at) {
      current.priority = priority;
      return;
    }
    const entry = { item, at, seq: this.#seq++, priority };
    this.#due.set(item, entry);
    heapPush(this.#heap, entry);
    this.#arm();
  }

  /** If `item` is scheduled by `addAfter`, drops that schedule and adds it at once; returns whether it was. */
  addNow(item: T): boolean {
    const entry = this.#due.get(item);
    if (entry === undefined) return false;
    this.#due.delete(item); // its heap entry is now stale and skipped
    this.add(item, { priority: entry.priority });
    return true;
  }

  /** When `item` will be added (clock time, ms), if `addAfter` scheduled it and it has not been added yet. */
  dueAt(item: T): number | undefined {
    return this.#due.get(item)?.at;
  }

  /** The number of items scheduled by `addAfter` and not yet added. */
  get scheduled(): number {
    return this.#due.size;
  }

  /** Cancels the pending timer and drops scheduled items, then shuts the queue down. */
  override shutDown(options: ShutDownOptions = {}): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Infinity;
    this.#heap = [];
    this.#due.clear();
    return super.shutDown(options);
  }

  #arm(): void {
    const next = this.#heap[0];
    if (!next || next.at >= this.#timerAt) return;
    this.#timer?.cancel();
    this.#timerAt = next.at;
    this.#timer = this.clock.setTimer(() => this.#fire(), next.at - this.clock.now());
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.clock.now();
    for (let next = this.#heap[0]; next && next.at <= now; next = this.#heap[0]) {
      heapPop(this.#heap);
      if (this.#due.get(next.item) !== next) continue; // superseded by an earlier schedule
      this.#due.delete(next.item);
      this.add(next.item, { priority: next.priority });
    }
    this.#arm();
  }
}

function before<T>(a: Scheduled<T>, b: Scheduled<T>): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

function heapPush<T>(heap: Scheduled<T>[], entry: Scheduled<T>): void {
  heap.push(entry);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function heapPop<T>(heap: Scheduled<T>[]): void {
  const last = heap.pop();
  if (!last || heap.length === 0) return;
  heap[0] = last;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let smallest = i;
    if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
    if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
    if (smallest === i) return;
    [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
    i = smallest;
  }
}
