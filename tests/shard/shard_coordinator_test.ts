import assert from "node:assert/strict";
import type { KubeObject, ResourceRef } from "../../lib/resources/object.ts";
import { NotShardOwnerError, ShardConfigError, ShardCoordinator, ShardFence } from "../../lib/shard/mod.ts";
import type { FenceTicket } from "../../lib/shard/shard_fence.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { FakeShardApi } from "./_fake_shard_client.ts";

const FOOS: ResourceRef = {
  group: "example.com",
  version: "v1",
  plural: "foos",
  kind: "Foo",
  namespaced: true,
};
const foo = (uid: string): KubeObject => ({ metadata: { name: uid, namespace: "ns", uid } });

function coordinator(api: FakeShardApi, clock: FakeClock, identity = "a") {
  return new ShardCoordinator(api.client(), {
    group: "g",
    namespace: "ns",
    ranges: 4,
    identity,
    clock,
    random: () => 0,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
  });
}

/** Advances the clock until `promise` settles. */
async function settle(clock: FakeClock, promise: Promise<void>): Promise<void> {
  let done = false;
  const tracked = promise.finally(() => done = true);
  await until(clock, () => done, 100, 60_000);
  await tracked;
}

async function until(clock: FakeClock, cond: () => boolean, stepMs = 100, maxMs = 60_000): Promise<void> {
  for (let t = 0; t < maxMs && !cond(); t += stepMs) await clock.advance(stepMs);
  assert.ok(cond(), "condition not reached");
}

Deno.test("alone, a replica claims every range, and a ticket's writes pass the fence only under its claim", async () => {
  const api = new FakeShardApi();
  const clock = new FakeClock();
  const c = coordinator(api, clock);
  const partition = c.partition(FOOS, "self");
  partition.subscribe(() => partition.synced(partition.version)); // an informer that lists at once
  const stop = new AbortController();
  const running = c.run({ signal: stop.signal });
  await until(clock, () => c.activeRanges().length === 4);
  assert.deepEqual([...api.leases.keys()].sort(), ["g", "g-m-a", "g-r0", "g-r1", "g-r2", "g-r3"]);
  const ticket = c.begin(foo("3f1c2b8e-9d4a-4c55-8f3e-0a1b2c3d4e5f"))!;
  assert.ok(ticket);
  await ticket.run(async () => {
    c.fence.check();
    // The API server stops answering: renewals fail, and the claim ends at its deadline.
    api.unreachable = true;
    await clock.advance(10_500);
    assert.throws(() => c.fence.check(), NotShardOwnerError);
  });
  assert.ok(ticket.signal.aborted, "the lost claim aborted the reconcile");
  ticket.end();
  assert.equal(c.begin(foo("x")), undefined, "nothing is admitted any more");
  api.unreachable = false;
  stop.abort();
  await settle(clock, running);
});

Deno.test("writes outside a reconcile pass only while the membership is valid", async () => {
  const api = new FakeShardApi();
  const clock = new FakeClock();
  const c = coordinator(api, clock);
  assert.throws(() => c.fence.check(), NotShardOwnerError, "not a member before joining");
  const stop = new AbortController();
  const running = c.run({ signal: stop.signal });
  await until(clock, () => api.leases.has("g-m-a"));
  await clock.advance(100);
  c.fence.check();
  stop.abort();
  await settle(clock, running);
  assert.equal(api.leases.get("g-m-a")?.spec?.holderIdentity, "");
});

Deno.test("a reconcile's context follows promise chains it starts, and yields to the membership once it ended", async () => {
  const outcomes: string[] = [];
  const fence = new ShardFence(() => void outcomes.push("member"));
  await fence.load();
  let open = true;
  const ticket: FenceTicket = {
    range: 2,
    get open() {
      return open;
    },
    check: () => void outcomes.push("claim"),
  };
  let queue: Promise<void> = Promise.resolve();
  const push = () => queue = queue.then(() => new Promise((r) => setTimeout(r, 0))).then(() => fence.check());
  await fence.run(ticket, async () => {
    // An event recorder's write queue: each job runs later, in the context of the code that queued it.
    push();
    await queue;
    push();
  });
  open = false;
  await queue;
  fence.check();
  assert.deepEqual(outcomes, ["claim", "member", "member"]);
});

Deno.test("missing Lease RBAC is refused at start, naming the verbs", async () => {
  const api = new FakeShardApi();
  api.denied = new Set(["list", "update"]);
  const c = coordinator(api, new FakeClock());
  await assert.rejects(
    () => c.run({ signal: new AbortController().signal }),
    (e: unknown) =>
      e instanceof ShardConfigError && e.reason === "forbidden" &&
      e.message ===
        'Sharding needs to get, list, create, update leases.coordination.k8s.io in namespace "ns"; RBAC does not allow: list, update',
  );
  assert.equal(api.leases.size, 0, "nothing was written");
});

Deno.test("the selector probe: echoed means server-side, ignored means client-side, an error is refused", async () => {
  for (const [answer, expected] of [["echo", "server"], ["ignore", "client"]] as const) {
    const api = new FakeShardApi();
    api.shardSelector = answer;
    const c = coordinator(api, new FakeClock());
    const partition = c.partition(FOOS, "self");
    await c.prepare();
    assert.equal(c.selectorSupport, expected);
    assert.equal(partition.shardSelector === undefined, expected === "client");
  }
  const api = new FakeShardApi();
  api.shardSelector = "reject";
  const c = coordinator(api, new FakeClock());
  await assert.rejects(
    () => c.prepare(),
    (e: unknown) => e instanceof ShardConfigError && e.reason === "selectorRejected",
  );
});

Deno.test("two replicas split the ranges and a graceful stop hands its ranges to the other", async () => {
  const api = new FakeShardApi();
  const clock = new FakeClock();
  const a = coordinator(api, clock, "a");
  const b = coordinator(api, clock, "b");
  for (const c of [a, b]) {
    const p = c.partition(FOOS, "self");
    p.subscribe(() => p.synced(p.version));
  }
  const stopA = new AbortController();
  const stopB = new AbortController();
  const runA = a.run({ signal: stopA.signal });
  const runB = b.run({ signal: stopB.signal });
  await until(clock, () => a.activeRanges().length === 2 && b.activeRanges().length === 2, 100, 120_000);
  assert.deepEqual([...a.activeRanges(), ...b.activeRanges()].sort(), [0, 1, 2, 3]);
  stopB.abort();
  await settle(clock, runB);
  // Released, not expired: well within the 15 s lease duration.
  await until(clock, () => a.activeRanges().length === 4, 100, 8_000);
  stopA.abort();
  await settle(clock, runA);
});

Deno.test("slow lists of the group's Leases do not space renewals out past their deadline", async () => {
  const api = new FakeShardApi();
  const clock = new FakeClock();
  const c = coordinator(api, clock);
  const stop = new AbortController();
  const running = c.run({ signal: stop.signal });
  await until(clock, () => c.activeRanges().length === 4);
  // Every list now takes 9 s, just under the request timeout (the renew deadline, 10 s).
  api.slowLists = { clock, ms: 9_000 };
  const lost: number[] = [];
  for (let t = 0; t < 60_000; t += 500) {
    await clock.advance(500);
    if (c.activeRanges().length < 4) lost.push(t);
  }
  assert.deepEqual(lost, [], "claims lapsed while lists were slow");
  api.slowLists = undefined;
  stop.abort();
  await settle(clock, running);
});
