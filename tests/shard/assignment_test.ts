import assert from "node:assert/strict";
import { assignRanges, movedRanges } from "../../lib/shard/assignment.ts";
import { seededRandom } from "../_util/seeded_random.ts";

/** Every choice of which members get the extra range; the fewest moves any balanced assignment needs. */
function minimumMoves(ranges: number, members: string[], holders: (string | undefined)[]): number {
  const n = members.length;
  const base = Math.floor(ranges / n);
  const extra = ranges % n;
  const held = members.map((m) => holders.filter((h) => h === m).length);
  let best = Infinity;
  for (let mask = 0; mask < 1 << n; mask++) {
    if (popcount(mask) !== extra) continue;
    let moves = 0;
    members.forEach((_, i) => moves += Math.max(0, held[i]! - (base + ((mask >> i) & 1))));
    // Ranges held by someone who is not a member move whatever happens.
    moves += holders.filter((h) => h !== undefined && !members.includes(h)).length;
    best = Math.min(best, moves);
  }
  return best;
}

function popcount(x: number): number {
  let c = 0;
  for (; x; x &= x - 1) c++;
  return c;
}

function randomCase(random: () => number) {
  const ranges = 2 ** Math.floor(random() * 6);
  const pool = ["a", "b", "c", "d", "e", "f", "g"];
  const members = pool.filter(() => random() < 0.6);
  const holders = Array.from(
    { length: ranges },
    () => random() < 0.2 ? undefined : pool[Math.floor(random() * pool.length)],
  );
  return { ranges, members, holders };
}

Deno.test("every range gets exactly one member, and quotas differ by at most one", () => {
  const random = seededRandom(7);
  for (let run = 0; run < 2000; run++) {
    const { ranges, members, holders } = randomCase(random);
    const desired = assignRanges(ranges, members, holders);
    assert.equal(desired.length, ranges);
    if (members.length === 0) {
      assert.ok(desired.every((d) => d === undefined));
      continue;
    }
    assert.ok(
      desired.every((d) => d !== undefined && members.includes(d)),
      JSON.stringify({ members, desired }),
    );
    const counts = members.map((m) => desired.filter((d) => d === m).length);
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, JSON.stringify({ ranges, members, counts }));
  }
});

Deno.test("no balanced assignment moves fewer ranges (checked against every choice of the extra ones)", () => {
  const random = seededRandom(11);
  for (let run = 0; run < 2000; run++) {
    const { ranges, members, holders } = randomCase(random);
    if (members.length === 0) continue;
    const moved = movedRanges(holders, assignRanges(ranges, members, holders)).length;
    assert.equal(moved, minimumMoves(ranges, members, holders), JSON.stringify({ ranges, members, holders }));
  }
});

Deno.test("a join moves about K/(N+1) ranges, all to the newcomer; a leave moves only the leaver's", () => {
  const ranges = 32;
  let holders = assignRanges(ranges, ["a", "b", "c"], []);
  const joined = assignRanges(ranges, ["a", "b", "c", "d"], holders);
  const moved = movedRanges(holders, joined);
  assert.equal(moved.length, 8);
  assert.ok(moved.every((i) => joined[i] === "d"));
  holders = joined;
  const left = assignRanges(ranges, ["a", "c", "d"], holders);
  const movedOnLeave = movedRanges(holders, left);
  assert.deepEqual(movedOnLeave, holders.flatMap((h, i) => h === "b" ? [i] : []));
});

Deno.test("the answer converges: applying it and assigning again changes nothing", () => {
  const random = seededRandom(5);
  for (let run = 0; run < 500; run++) {
    const { ranges, members, holders } = randomCase(random);
    const desired = assignRanges(ranges, members, holders);
    assert.deepEqual(assignRanges(ranges, members, desired), desired);
  }
});

Deno.test("the answer depends on the members, not on the order they are listed in", () => {
  const holders = ["b", "a", undefined, "c", "c", "c", "c", undefined];
  assert.deepEqual(assignRanges(8, ["c", "a", "b"], holders), assignRanges(8, ["a", "b", "c", "a"], holders));
});
