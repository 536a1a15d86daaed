import assert from "node:assert/strict";
import { encodeGroupConfig } from "../../lib/shard/group_leases.ts";
import {
  admits,
  initialState,
  type LeaseView,
  memberValid,
  type ShardInput,
  type ShardProtocolConfig,
  type ShardState,
  type ShardTransition,
  step,
  writableEpoch,
} from "../../lib/shard/shard_state.ts";

const CONFIG = encodeGroupConfig({ ranges: 4, key: "uid" });
const config: ShardProtocolConfig = {
  identity: "me",
  memberName: "g-m-me",
  configName: "g",
  rangeName: (i) => `g-r${i}`,
  groupConfig: CONFIG,
  ranges: 4,
  leaseMs: 15_000,
  renewDeadlineMs: 10_000,
  drainTimeoutMs: 3_000,
  abortGraceMs: 2_000,
};

function lease(name: string, role: LeaseView["role"], holder: string, record = "1", cfg = CONFIG): LeaseView {
  return { name, role, holder, durationMs: 15_000, record: `${holder}@${record}`, config: cfg };
}

const configLease = (cfg = CONFIG) => lease("g", "config", "", "0", cfg);
const member = (who: string, record = "1") => lease(`g-m-${who}`, "member", who, record);
const range = (i: number, holder: string, record = "1") => lease(`g-r${i}`, "range", holder, record);
const observed = (now: number, ...leases: LeaseView[]): ShardInput => ({ kind: "observed", now, leases });
const written = (op: Parameters<typeof writeOk>[0], name: string, startedAt: number, now = startedAt + 100) =>
  writeOk(op, name, startedAt, now);
function writeOk(
  op: Extract<ShardInput, { kind: "written" }>["op"],
  name: string,
  startedAt: number,
  now: number,
): ShardInput {
  return { kind: "written", op, name, startedAt, now, lease: undefined };
}
const tick = (now: number, inflight = [0, 0, 0, 0]): ShardInput => ({ kind: "tick", now, inflight });
const writes = (t: ShardTransition) =>
  t.actions.flatMap((a) => a.kind === "write" ? [`${a.op} ${a.name}`] : []);

function run(state: ShardState, ...inputs: ShardInput[]): ShardTransition {
  let t: ShardTransition = { state, actions: [], notices: [] };
  for (const input of inputs) t = step(t.state, input);
  return t;
}

/** A replica that joined at t=0 and holds nothing yet. */
function joined(): ShardState {
  return run(
    initialState(config),
    observed(0, configLease()),
    written("member", "g-m-me", 0),
  ).state;
}

/** Joined, alone, and holding every range active (claimed at 1000, caches synced). */
function owningAll(): ShardState {
  let s = run(joined(), observed(1000, configLease(), member("me"))).state;
  for (let i = 0; i < 4; i++) s = step(s, written("claim", `g-r${i}`, 1000)).state;
  return step(s, { kind: "synced", version: s.scopeVersion }).state;
}

Deno.test("a replica of a new group creates the config Lease, then registers, then runs", () => {
  let t = step(initialState(config), observed(0));
  assert.deepEqual(writes(t), ["createConfig g"]);
  t = step(t.state, written("createConfig", "g", 0));
  t = step(t.state, observed(100, configLease()));
  assert.deepEqual(writes(t), ["member g-m-me"]);
  assert.equal(t.state.phase.kind, "joining");
  t = step(t.state, written("member", "g-m-me", 100));
  assert.equal(t.state.phase.kind, "running");
  assert.ok(
    memberValid(t.state, 10_099) && !memberValid(t.state, 10_100),
    "valid until start + renew deadline",
  );
});

Deno.test("a member Lease held by another live replica of the same name is a refusal, not a takeover", () => {
  const t = step(initialState(config), observed(0, configLease(), lease("g-m-me", "member", "someone-else")));
  assert.equal(t.state.phase.kind, "failed");
  assert.deepEqual(writes(t), []);
});

Deno.test("another configuration whose member renews is refused, naming both configurations", () => {
  const other = encodeGroupConfig({ ranges: 8, key: "namespace" });
  const m = (record: string) => lease("g-m-b", "member", "b", record, other);
  let t = step(initialState(config), observed(0, configLease(other), m("1")));
  assert.equal(t.state.phase.kind, "joining");
  assert.deepEqual(writes(t), []);
  t = step(t.state, observed(2000, configLease(other), m("2")));
  assert.deepEqual(t.state.phase, {
    kind: "failed",
    message:
      'Shard group "g" runs 8 ranges hashed on namespace (member "b" is alive), but this replica was ' +
      "started with 4 ranges hashed on uid: every replica of a group needs the same range count and key",
  });
});

Deno.test("another configuration nobody runs any more is replaced once its Leases sat out their duration", () => {
  const other = encodeGroupConfig({ ranges: 8, key: "uid" });
  const dead = [
    configLease(other),
    lease("g-m-b", "member", "b", "1", other),
    lease("g-r3", "range", "b", "1", other),
  ];
  let t = step(initialState(config), observed(0, ...dead));
  t = step(t.state, observed(14_999, ...dead));
  assert.deepEqual(writes(t), []);
  t = step(t.state, observed(15_000, ...dead));
  assert.deepEqual(writes(t), ["replaceConfig g"]);
});

Deno.test("a running replica seeing the group reconfigured stops at once", () => {
  const t = step(owningAll(), observed(2000, configLease(encodeGroupConfig({ ranges: 8, key: "uid" }))));
  assert.equal(t.state.phase.kind, "failed");
  assert.equal(writableEpoch(t.state, 0, 2000), undefined);
});

Deno.test("claimed ranges sync their caches before they admit work", () => {
  let t = step(joined(), observed(1000, configLease(), member("me")));
  assert.deepEqual(writes(t), ["claim g-r0", "claim g-r1", "claim g-r2", "claim g-r3"]);
  t = step(t.state, written("claim", "g-r0", 1000));
  const rescope = t.actions.find((a) => a.kind === "rescope");
  assert.deepEqual(rescope, { kind: "rescope", version: 1, ranges: [0] });
  assert.equal(admits(t.state, 0, 1200), false);
  assert.equal(writableEpoch(t.state, 0, 1200), undefined, "no work runs, so nothing may write");
  t = step(t.state, { kind: "synced", version: 1 });
  assert.deepEqual(t.actions, [{ kind: "activate", index: 0 }]);
  assert.ok(admits(t.state, 0, 1200));
  assert.equal(writableEpoch(t.state, 0, 1200), 1);
});

Deno.test("a claim lasts the renew deadline from when its write STARTED, and renewals extend it", () => {
  let s = owningAll();
  assert.equal(writableEpoch(s, 2, 10_999), 1 + 2);
  assert.equal(writableEpoch(s, 2, 11_000), undefined);
  const t = step(s, tick(3000));
  assert.deepEqual(writes(t), ["member g-m-me", "renew g-r0", "renew g-r1", "renew g-r2", "renew g-r3"]);
  // Answered 4 s later: the deadline counts from 3000, not from the answer.
  s = step(t.state, written("renew", "g-r2", 3000, 7000)).state;
  assert.ok(admits(s, 2, 12_999) && !admits(s, 2, 13_000));
});

Deno.test("past its deadline a range is lost: in-flight work is aborted and caches drop it", () => {
  const s = owningAll();
  const t = step(s, tick(11_000, [0, 2, 0, 0]));
  assert.ok(t.actions.some((a) => a.kind === "abort" && a.index === 1 && a.reason === "lost"));
  assert.ok(t.state.ranges.every((r) => r.kind === "idle"));
  assert.deepEqual(t.actions.find((a) => a.kind === "rescope"), {
    kind: "rescope",
    version: s.scopeVersion + 1,
    ranges: [],
  });
});

Deno.test("a renewal answered 409 means someone else holds the range now: lost at once", () => {
  const t = step(owningAll(), { kind: "writeFailed", op: "renew", name: "g-r1", conflict: true });
  assert.equal(t.state.ranges[1]!.kind, "idle");
  assert.deepEqual(t.actions.filter((a) => a.kind === "abort"), [{
    kind: "abort",
    index: 1,
    reason: "lost",
  }]);
  const failed = step(owningAll(), { kind: "writeFailed", op: "renew", name: "g-r2", conflict: false });
  assert.equal(failed.state.ranges[2]!.kind, "active", "a failed request alone leaves it to the deadline");
});

Deno.test("a list naming another holder of a range we hold ends our claim", () => {
  const t = step(owningAll(), observed(2000, configLease(), member("me"), range(3, "other")));
  assert.equal(t.state.ranges[3]!.kind, "idle");
  assert.ok(t.actions.some((a) => a.kind === "abort" && a.index === 3));
});

Deno.test("a range held by a live replica is claimed only after its record sat unchanged for its duration", () => {
  const held = [configLease(), member("me"), range(0, "dead", "1")];
  let t = step(joined(), observed(1000, ...held));
  assert.ok(!writes(t).includes("claim g-r0"), "held by a non-member, but not yet expired");
  t = step(t.state, observed(15_999, ...held));
  assert.ok(!writes(t).includes("claim g-r0"));
  t = step(t.state, written("member", "g-m-me", 15_000));
  t = step(t.state, observed(16_000, ...held));
  assert.ok(writes(t).includes("claim g-r0"));
});

Deno.test("a range that must move drains: no new work, in-flight work finishes, then it is released", () => {
  let t = step(owningAll(), observed(2000, configLease(), member("me"), member("b")));
  const draining = t.state.ranges.flatMap((r, i) => r.kind === "draining" ? [i] : []);
  assert.equal(draining.length, 2, "two of four ranges move to the newcomer");
  const i = draining[0]!;
  assert.equal(admits(t.state, i, 2000), false);
  assert.ok(writableEpoch(t.state, i, 2000) !== undefined, "in-flight work may still write");
  const inflight = [0, 0, 0, 0];
  inflight[i] = 1;
  inflight[draining[1]!] = 1;
  t = step(t.state, tick(2500, inflight));
  assert.ok(writes(t).includes(`renew g-r${i}`), "renewed while work drains");
  t = step(t.state, written("renew", `g-r${i}`, 2500));
  inflight[i] = 0;
  t = step(t.state, tick(2700, inflight));
  assert.equal(t.state.ranges[i]!.kind, "releasing");
  assert.ok(writes(t).includes(`release g-r${i}`));
  assert.equal(writableEpoch(t.state, i, 2700), undefined, "the fence closes before the release is sent");
  t = step(t.state, written("release", `g-r${i}`, 2700));
  assert.equal(t.state.ranges[i]!.kind, "idle");
});

Deno.test("work that outlives the drain timeout is aborted, and if it still runs the claim lapses unreleased", () => {
  let s = step(owningAll(), observed(2000, configLease(), member("me"), member("b"))).state;
  const i = s.ranges.findIndex((r) => r.kind === "draining");
  const inflight = [1, 1, 1, 1];
  let t = step(s, tick(4999, inflight));
  assert.ok(!t.actions.some((a) => a.kind === "abort"));
  s = run(t.state, ...["g-r0", "g-r1", "g-r2", "g-r3"].map((n) => written("renew", n, 4999))).state;
  t = step(s, tick(5000, inflight));
  assert.ok(t.actions.some((a) => a.kind === "abort" && a.index === i && a.reason === "drainTimeout"));
  s = run(t.state, ...["g-r0", "g-r1", "g-r2", "g-r3"].map((n) => written("renew", n, 5000))).state;
  t = step(s, tick(7000, inflight));
  assert.equal(t.state.ranges[i]!.kind, "idle");
  assert.ok(!writes(t).includes(`release g-r${i}`), "not released: the others wait for it to expire");
  assert.equal(writableEpoch(t.state, i, 7000), undefined);
});

Deno.test("shutdown hands the membership back first, drains every range, and stops when all is released", () => {
  let t = step(owningAll(), { kind: "stop", now: 2000 });
  assert.deepEqual(writes(t), ["releaseMember g-m-me"]);
  assert.ok(t.state.ranges.every((r) => r.kind === "draining"));
  t = step(t.state, written("releaseMember", "g-m-me", 2000));
  t = step(t.state, tick(2100));
  assert.deepEqual(writes(t), ["release g-r0", "release g-r1", "release g-r2", "release g-r3"]);
  t = run(t.state, ...[0, 1, 2, 3].map((i) => written("release", `g-r${i}`, 2100)));
  assert.equal(t.state.phase.kind, "stopped");
});

Deno.test("a stopped or failed replica ignores every input", () => {
  const failed = step(initialState(config), observed(0, configLease(), lease("g-m-me", "member", "x"))).state;
  assert.equal(failed.phase.kind, "failed");
  assert.deepEqual(step(failed, tick(1)).actions, []);
});
