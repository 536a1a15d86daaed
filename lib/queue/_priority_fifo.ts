/**
 * The entries of a WorkQueue's waiting items: one FIFO per priority, highest priority first, first in
 * first out within a priority. It keeps no per-item state: the queue knows which items wait and at which
 * priority, and `shift` asks it whether an entry is current. Raising a waiting item's priority appends a
 * new entry and leaves the old one behind, which the queue's answer skips when it is reached. Every
 * operation is O(1) amortized apart from a new priority level (a sorted insert into the short list of
 * levels).
 */
class Level<T> {
  items: T[] = [];
  head = 0;

  /** Drops the taken prefix once it is most of the array, so memory follows the waiting count. */
  compact(): void {
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

/** Entries by priority; see the module doc. */
export class PriorityFifo<T> {
  readonly #levels = new Map<number, Level<T>>();
  /** The level of priority 0, where nearly every item waits: kept at hand. */
  readonly #zero = new Level<T>();
  /** Priorities that have a level, highest first. */
  #order: number[] = [0];

  constructor() {
    this.#levels.set(0, this.#zero);
  }

  /** Appends an entry for `item` at `priority`. */
  push(item: T, priority: number): void {
    (priority === 0 ? this.#zero : this.#level(priority)).items.push(item);
  }

  /**
   * Takes the first entry of the highest priority for which `current(item, priority)` is true, dropping
   * the entries before it that are not; undefined when no current entry is left.
   */
  shift(current: (item: T, priority: number) => boolean): T | undefined {
    for (let i = 0; i < this.#order.length;) {
      const priority = this.#order[i]!;
      const level = priority === 0 ? this.#zero : this.#levels.get(priority)!;
      if (level.head === level.items.length) {
        // An empty level other than 0 goes, so the scan stays short.
        if (priority !== 0) {
          this.#levels.delete(priority);
          this.#order.splice(i, 1);
        } else {
          i++;
        }
        continue;
      }
      const item = level.items[level.head]!;
      level.head++;
      level.compact();
      if (current(item, priority)) return item;
    }
    return undefined;
  }

  /** Forgets every entry. */
  clear(): void {
    this.#levels.clear();
    this.#zero.items = [];
    this.#zero.head = 0;
    this.#levels.set(0, this.#zero);
    this.#order = [0];
  }

  #level(priority: number): Level<T> {
    let level = this.#levels.get(priority);
    if (level === undefined) {
      level = new Level<T>();
      this.#levels.set(priority, level);
      let at = 0;
      while (at < this.#order.length && this.#order[at]! > priority) at++;
      this.#order.splice(at, 0, priority);
    }
    return level;
  }
}
