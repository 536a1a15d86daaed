import assert from "node:assert/strict";
import { encodeGroupConfig } from "../../lib/shard/group_leases.ts";
import { seededRandom } from "../_util/seeded_random.ts";
import { type Interval, Simulation, TIMING } from "./_simulation.ts";

/** No two replicas' writable windows on one range overlap, and every fenced write reached the server inside
 * its writer's window and outside everyone else's. */
function assertExclusive(sim: Simulation): void {
  const byRange = new Map<number, Interval[]>();
  for (const i of sim.intervals) {
    if (i.end <= i.start) continue;
    byRange.set(i.range, [...(byRange.get(i.range) ?? []), i]);
  }
  for (const [range, list] of byRange) {
    list.sort((a, b) => a.start - b.start);
    for (let a = 0; a < list.length; a++) {
      for (let b = a + 1; b < list.length && list[b]!.start < list[a]!.end; b++) {
        if (list[a]!.replica === list[b]!.replica) continue;
        assert.fail(`range ${range}: ${JSON.stringify(list[a])} overlaps ${JSON.stringify(list[b])}`);
      }
    }
  }
  for (const w of sim.writes) {
    const other = (byRange.get(w.range) ?? []).find((i) =>
      i.replica !== w.replica && i.start <= w.arrivedAt && w.arrivedAt < i.end
    );
    assert.equal(other, undefined, `write ${JSON.stringify(w)} arrived inside ${JSON.stringify(other)}`);
  }
}

/**
 * No two replicas reconcile one range at once. A reconcile counts until it returned, except when its
 * writer's window closed because its deadline passed (a paused or cut-off replica: it aborts when it runs
 * again) or its signal was aborted: then it counts until that window closed, since the fence refuses all
 * it tries afterwards. A range released while a reconcile still runs fails this.
 */
function assertNoDoubleReconcile(sim: Simulation): void {
  const effective = sim.reconciles.map((w) => {
    const window = sim.intervals.find((i) =>
      i.replica === w.replica && i.range === w.range && i.start <= w.start && w.start < i.end
    );
    const cut = window === undefined || window.byDeadline === true || w.aborted === true;
    return { ...w, end: cut ? Math.min(w.end, window?.end ?? w.start) : w.end };
  });
  const byRange = new Map<number, typeof effective>();
  for (const w of effective) byRange.set(w.range, [...(byRange.get(w.range) ?? []), w]);
  for (const [range, list] of byRange) {
    list.sort((a, b) => a.start - b.start);
    let reach = { end: -Infinity, replica: "" };
    for (const w of list) {
      if (w.start < reach.end && w.replica !== reach.replica) {
        assert.fail(
          `range ${range}: a reconcile of ${w.replica} at ${w.start} overlaps one of ${reach.replica} until ${reach.end}`,
        );
      }
      if (w.end > reach.end) reach = { end: w.end, replica: w.replica };
    }
  }
}

/** Every range is active on exactly one of `ids`, and the counts differ by at most one. */
function assertConverged(sim: Simulation, ids: string[]): void {
  const owners = sim.activeOwners();
  owners.forEach((o, i) => assert.equal(o.length, 1, `range ${i} is active on ${JSON.stringify(o)}`));
  const counts = ids.map((id) => owners.filter((o) => o[0] === id).length);
  assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `unbalanced: ${JSON.stringify(counts)}`);
  assert.equal(counts.reduce((a, b) => a + b, 0), sim.ranges);
}

Deno.test("three replicas converge to a balanced split, each range active on exactly one", () => {
  const sim = new Simulation(seededRandom(1));
  for (const id of ["a", "b", "c"]) sim.join(id);
  sim.run(60_000);
  assertConverged(sim, ["a", "b", "c"]);
  assertExclusive(sim);
  assertNoDoubleReconcile(sim);
  assert.ok(sim.writes.length > 1000, `${sim.writes.length} writes`);
});

Deno.test("a fourth replica takes K/4 ranges and nothing else moves", () => {
  const sim = new Simulation(seededRandom(2));
  for (const id of ["a", "b", "c"]) sim.join(id);
  sim.run(60_000);
  const before = sim.activeOwners().map((o) => o[0]);
  sim.join("d");
  sim.run(120_000);
  assertConverged(sim, ["a", "b", "c", "d"]);
  const after = sim.activeOwners().map((o) => o[0]);
  const moved = after.filter((owner, i) => owner !== before[i]);
  assert.equal(moved.length, sim.ranges / 4);
  assert.ok(moved.every((owner) => owner === "d"));
  assertExclusive(sim);
  assertNoDoubleReconcile(sim);
});

Deno.test("a killed replica's ranges are taken over within the lease duration plus a few periods", () => {
  const sim = new Simulation(seededRandom(3));
  for (const id of ["a", "b", "c"]) sim.join(id);
  sim.run(60_000);
  sim.kill("b");
  sim.run(60_000 + TIMING.leaseMs + 3 * TIMING.retryMs + 2_000);
  assertConverged(sim, ["a", "c"]);
  assertExclusive(sim);
  assertNoDoubleReconcile(sim);
});

Deno.test("a replica paused past its lease writes nothing for ranges it lost and rejoins", () => {
  const sim = new Simulation(seededRandom(4));
  for (const id of ["a", "b", "c"]) sim.join(id);
  sim.run(60_000);
  sim.pause("b", 40_000);
  sim.run(99_000);
  assertConverged(sim, ["a", "c"]);
  const wokeAt = 100_000;
  sim.run(180_000);
  assertConverged(sim, ["a", "b", "c"]);
  assertExclusive(sim);
  assertNoDoubleReconcile(sim);
  // Nothing b attempted right after waking got through for a range it had held before the pause.
  const early = sim.writes.filter((w) => w.replica === "b" && w.sentAt >= wokeAt && w.sentAt < wokeAt + 1);
  assert.deepEqual(early, []);
});

Deno.test("graceful stops hand ranges over without waiting for the lease to expire", () => {
  const sim = new Simulation(seededRandom(5), 16, 800, 0);
  for (const id of ["a", "b", "c"]) sim.join(id);
  sim.run(60_000);
  sim.stop("c");
  // Drain (at most 3 s + 2 s) and a couple of periods, well below the 15 s lease duration.
  sim.run(60_000 + 10_000);
  assertConverged(sim, ["a", "b"]);
  assertExclusive(sim);
  assertNoDoubleReconcile(sim);
});

Deno.test("random churn, pauses, kills and joins never let two replicas write for one range", () => {
  for (let seed = 10; seed < 22; seed++) {
    const random = seededRandom(seed);
    const sim = new Simulation(random);
    const ids: string[] = [];
    let next = 0;
    const add = () => {
      const id = `r${next++}`;
      ids.push(id);
      sim.join(id);
    };
    for (let i = 0; i < 3; i++) add();
    for (let t = 20_000; t <= 240_000; t += 20_000) {
      sim.run(t);
      const alive = ids.filter((id) => sim.live().some((r) => r.id === id));
      const pick = alive[Math.floor(random() * alive.length)];
      const roll = random();
      if (pick === undefined || roll < 0.25) add();
      else if (roll < 0.5) sim.pause(pick, 5_000 + random() * 35_000);
      else if (roll < 0.65 && alive.length > 1) sim.kill(pick);
      else if (roll < 0.8 && alive.length > 1) sim.stop(pick);
    }
    // Quiet: everyone wakes, the dead stay dead.
    sim.run(330_000);
    assertExclusive(sim);
    assertNoDoubleReconcile(sim);
    assertNoDoubleReconcile(sim);
    assertConverged(sim, sim.live().map((r) => r.id));
    assert.deepEqual(sim.failures, []);
  }
});

Deno.test("a replica started with another range count is refused while the group's members live", () => {
  const sim = new Simulation(seededRandom(6));
  for (const id of ["a", "b"]) sim.join(id);
  sim.run(30_000);
  sim.join("x", encodeGroupConfig({ ranges: 8, key: "uid" }));
  sim.run(60_000);
  assert.equal(sim.failures.length, 1);
  assert.match(
    sim.failures[0]!,
    /^x: Shard group "g" runs 16 ranges hashed on uid \(member "[ab]" is alive\), but this replica was started with 8 ranges hashed on uid/,
  );
  assertConverged(sim, ["a", "b"]);
  assertExclusive(sim);
  assertNoDoubleReconcile(sim);
});
