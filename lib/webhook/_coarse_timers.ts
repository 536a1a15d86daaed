/**
 * Deadlines by the hundred, on one timer. Every request of the webhook server sets and cancels a few
 * deadlines (reading, writing, the handler's timeout) that almost never fire; one `setTimeout` each cost more
 * CPU than parsing the request. Here a deadline is an entry in a set, and one underlying timer fires at the
 * earliest of them, late by up to `resolutionMs` so that deadlines close together fire together.
 * @module
 */
import type { Clock, Timer } from "../time/clock.ts";

interface Entry {
  readonly due: number;
  readonly fn: () => void;
}

/**
 * A Clock whose timers fire up to `resolutionMs` late and share one timer of `clock`. When no timer is
 * pending, nothing is scheduled on `clock` (nothing keeps the process alive).
 */
export function coarseTimers(clock: Clock, resolutionMs: number): Clock {
  const entries = new Set<Entry>();
  let scheduled: Timer | undefined;
  let scheduledAt = Infinity;
  const schedule = (due: number) => {
    scheduled?.cancel();
    scheduledAt = due + resolutionMs;
    scheduled = clock.setTimer(fire, scheduledAt - clock.now());
  };
  const fire = () => {
    scheduled = undefined;
    scheduledAt = Infinity;
    const now = clock.now();
    let next = Infinity;
    for (const entry of entries) {
      if (entry.due <= now) {
        entries.delete(entry);
        entry.fn();
      } else if (entry.due < next) {
        next = entry.due;
      }
    }
    // fn() may have added entries (and scheduled them) or cancelled some.
    if (next !== Infinity && next + resolutionMs < scheduledAt) schedule(next);
  };
  return {
    now: () => clock.now(),
    setTimer(fn, ms) {
      const entry = { due: clock.now() + ms, fn };
      entries.add(entry);
      if (entry.due + resolutionMs < scheduledAt) schedule(entry.due);
      return {
        cancel() {
          if (!entries.delete(entry) || entries.size > 0) return;
          scheduled?.cancel();
          scheduled = undefined;
          scheduledAt = Infinity;
        },
      };
    },
  };
}
