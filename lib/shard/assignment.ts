/**
 * Which live member should own each range: balanced, and moving as few ranges as possible.
 *
 * With N members and K ranges every member's quota is ⌊K/N⌋ and K mod N of them get one more; the extra
 * ones go to the members that hold the most now (ties: by name), every member keeps up to its quota of
 * the ranges it holds (lowest indexes first), and only the rest move: ranges with no live holder and a
 * member's excess over its quota. No balanced assignment moves fewer ranges (tests/shard/assignment_test.ts
 * checks it against every choice of who gets the extra ones). A join therefore moves about K/(N+1)
 * ranges, all to the newcomer; a leave moves only the leaver's ranges.
 *
 * The function is pure and deterministic, so replicas that see the same members and holders compute
 * the same answer; while their views differ, they may disagree for a moment, which costs time, never
 * safety: a range changes hands only through its Lease (see shard_state.ts).
 * @module
 */

/**
 * The desired owner of each of `ranges` ranges (undefined only when there are no members). `holders[i]`
 * is the live holder of range i as observed, or undefined; holders that are not members are ignored.
 */
export function assignRanges(
  ranges: number,
  members: readonly string[],
  holders: readonly (string | undefined)[],
): (string | undefined)[] {
  const names = [...new Set(members)].sort();
  const desired: (string | undefined)[] = new Array(ranges).fill(undefined);
  if (names.length === 0) return desired;
  const held = new Map<string, number[]>(names.map((m) => [m, []]));
  for (let i = 0; i < ranges; i++) {
    const holder = holders[i];
    if (holder !== undefined) held.get(holder)?.push(i);
  }
  const base = Math.floor(ranges / names.length);
  const extra = ranges % names.length;
  // The extra ranges go to those holding the most, so the fewest holders must give one up.
  const byHoldings = [...names].sort((a, b) => held.get(b)!.length - held.get(a)!.length || cmp(a, b));
  const quota = new Map<string, number>(byHoldings.map((m, i) => [m, base + (i < extra ? 1 : 0)]));
  for (const m of names) {
    for (const i of held.get(m)!.slice(0, quota.get(m)!)) desired[i] = m;
  }
  const room = new Map<string, number>(
    names.map((m) => [m, quota.get(m)! - Math.min(held.get(m)!.length, quota.get(m)!)]),
  );
  for (let i = 0; i < ranges; i++) {
    if (desired[i] !== undefined) continue;
    // The member with the most room takes it (ties: by name), spreading free ranges evenly.
    let best: string | undefined;
    for (const m of names) {
      if (room.get(m)! > 0 && (best === undefined || room.get(m)! > room.get(best)!)) best = m;
    }
    desired[i] = best;
    if (best !== undefined) room.set(best, room.get(best)! - 1);
  }
  return desired;
}

/** Ranges whose desired owner differs from their live holder (a holder of undefined moves nothing). */
export function movedRanges(
  holders: readonly (string | undefined)[],
  desired: readonly (string | undefined)[],
): number[] {
  const moved: number[] = [];
  holders.forEach((holder, i) => {
    if (holder !== undefined && holder !== desired[i]) moved.push(i);
  });
  return moved;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
