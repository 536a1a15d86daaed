/**
 * Freezes `value` and everything reachable from it, in place, and returns it. Writing to a frozen object
 * throws a TypeError in modules (strict mode), so a test that mutates a cached object through a cast fails
 * at the mutation instead of corrupting the cache silently. A loop, not recursion: an object nested as
 * deep as the API server allows (10,000 levels) is frozen like any other. An object already frozen is taken
 * as frozen all the way down.
 */
export function deepFreeze<T>(value: T): T {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== "object" || next === null || Object.isFrozen(next)) continue;
    Object.freeze(next);
    const fields = next as Record<string, unknown>;
    for (const key of Object.keys(fields)) pending.push(fields[key]);
  }
  return value;
}
