import assert from "node:assert/strict";
import {
  LeaderElectionLostError,
  LeaderElector,
  type LeaderElectorOptions,
  type LeaseClient,
  LeaseFence,
  NotLeaderError,
} from "../../lib/leader/mod.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { clientView, FakeLeaseClient } from "./fake_lease_client.ts";

interface Candidate {
  elector: LeaderElector;
  ctl: AbortController;
  done: Promise<void>;
  events: string[];
  leadingSignals: AbortSignal[];
}

function start(
  client: LeaseClient,
  clock: FakeClock,
  identity: string,
  extra: Partial<LeaderElectorOptions> = {},
): Candidate {
  const events: string[] = [];
  const leadingSignals: AbortSignal[] = [];
  const elector = new LeaderElector(client, {
    leaseName: "demo",
    namespace: "ns",
    identity,
    clock,
    random: () => 0,
    onStartedLeading: (signal) => {
      leadingSignals.push(signal);
      events.push("started");
    },
    onStoppedLeading: () => void events.push("stopped"),
    onNewLeader: (id) => void events.push(`leader:${id}`),
    ...extra,
  });
  const ctl = new AbortController();
  return { elector, ctl, done: elector.run({ signal: ctl.signal }), events, leadingSignals };
}

async function stopAll(clock: FakeClock, ...cands: Candidate[]): Promise<void> {
  for (const c of cands) c.ctl.abort();
  await clock.advance(0);
  await Promise.all(cands.map((c) => c.done));
}

Deno.test("two electors on one lease: exactly one leads", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const a = start(store, clock, "a");
  const b = start(store, clock, "b");
  await clock.advance(0);
  for (let i = 0; i < 10; i++) {
    await clock.advance(2_000);
    assert.equal([a, b].filter((c) => c.elector.isLeader).length, 1);
  }
  const leader = a.elector.isLeader ? "a" : "b";
  assert.equal(store.leases.get("ns/demo")?.spec?.holderIdentity, leader);
  assert.equal(a.elector.leader, leader);
  assert.equal(b.elector.leader, leader);
  await stopAll(clock, a, b);
});

Deno.test("a cancelled leader releases the lease and the other acquires within one retry period", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const a = start(store, clock, "a");
  await clock.advance(0);
  assert.ok(a.elector.isLeader);
  const b = start(store, clock, "b");
  await clock.advance(0);
  assert.ok(!b.elector.isLeader);
  a.ctl.abort();
  await a.done;
  assert.deepEqual(a.events, ["leader:a", "started", "stopped"]);
  assert.ok(a.leadingSignals[0]?.aborted);
  const released = store.leases.get("ns/demo");
  assert.equal(released?.spec?.holderIdentity, "");
  assert.equal(released?.spec?.leaseDurationSeconds, 1);
  await clock.advance(2_000);
  assert.ok(b.elector.isLeader);
  assert.equal(store.leases.get("ns/demo")?.spec?.leaseTransitions, 1);
  await stopAll(clock, b);
});

Deno.test("a leader that stops without releasing is replaced only after the lease duration", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const a = start(store, clock, "a", { releaseOnCancel: false });
  await clock.advance(0);
  const b = start(store, clock, "b");
  await clock.advance(0);
  a.ctl.abort(); // a "crash": no more renewals and no release
  await a.done;
  assert.equal(store.leases.get("ns/demo")?.spec?.holderIdentity, "a");
  await clock.advance(14_000);
  assert.ok(!b.elector.isLeader, "must not take over before the lease duration passed on its own clock");
  await clock.advance(3_000);
  assert.ok(b.elector.isLeader);
  assert.deepEqual(b.events, ["leader:a", "leader:b", "started"]);
  await stopAll(clock, b);
});

Deno.test("expiry is judged on the local clock, not from the remote renewTime", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  // A lease renewed "long ago" by another host's clock is still respected for a full duration.
  await store.create({ group: "", version: "", plural: "", kind: "", namespaced: true }, {
    metadata: { name: "demo", namespace: "ns" },
    spec: { holderIdentity: "old", leaseDurationSeconds: 15, renewTime: "2000-01-01T00:00:00.000000Z" },
  }, { namespace: "ns" });
  const b = start(store, clock, "b");
  await clock.advance(12_000);
  assert.ok(!b.elector.isLeader);
  await clock.advance(6_000);
  assert.ok(b.elector.isLeader);
  await stopAll(clock, b);
});

Deno.test("renew failures past the renew deadline stop leading and abort the leading signal", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const view = clientView(store);
  const status: boolean[] = [];
  const a = start(view, clock, "a", { metrics: { setLeading: (_n, l) => void status.push(l) } });
  await clock.advance(0);
  assert.ok(a.elector.isLeader);
  view.failing = true;
  await clock.advance(8_000);
  assert.ok(a.elector.isLeader, "still within the renew deadline");
  await clock.advance(2_000);
  await a.done;
  assert.ok(!a.elector.isLeader);
  assert.deepEqual(a.events, ["leader:a", "started", "stopped"]);
  assert.ok(a.leadingSignals[0]?.aborted);
  assert.deepEqual(status, [true, false]);
  assert.equal(store.leases.get("ns/demo")?.spec?.holderIdentity, "a", "a lost leader does not release");
});

Deno.test("a leader that sees another holder steps down at once", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const a = start(store, clock, "a");
  await clock.advance(0);
  const lease = store.leases.get("ns/demo");
  assert.ok(lease?.spec);
  lease.spec.holderIdentity = "intruder";
  lease.metadata.resourceVersion = "999";
  await clock.advance(2_000);
  await a.done;
  assert.deepEqual(a.events, ["leader:a", "started", "leader:intruder", "stopped"]);
});

Deno.test("leading work is awaited before the lease is released", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const order: string[] = [];
  let finish = () => {};
  const a = start(store, clock, "a", {
    onStartedLeading: (signal) =>
      new Promise<void>((resolve) => {
        signal.addEventListener("abort", () => order.push("aborted"));
        finish = () => {
          order.push(`finished holder=${store.leases.get("ns/demo")?.spec?.holderIdentity}`);
          resolve();
        };
      }),
  });
  await clock.advance(0);
  a.ctl.abort();
  await clock.advance(0);
  finish();
  await a.done;
  assert.deepEqual(order, ["aborted", "finished holder=a"]);
  assert.equal(store.leases.get("ns/demo")?.spec?.holderIdentity, "");
});

Deno.test("an abort that lands while the acquire succeeds still releases the lease, without leading", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const ctl = new AbortController();
  // The abort arrives while the create is on the wire; the server commits the write anyway.
  const racing: LeaseClient = {
    get: (ref, name, o) => store.get(ref, name, o),
    create: async (ref, obj, o) => {
      const created = await store.create(ref, obj, o);
      ctl.abort();
      return created;
    },
    replace: (ref, obj, o) => store.replace(ref, obj, o),
  };
  const events: string[] = [];
  const elector = new LeaderElector(racing, {
    leaseName: "demo",
    namespace: "ns",
    identity: "a",
    clock,
    onStartedLeading: () => void events.push("started"),
  });
  await elector.run({ signal: ctl.signal });
  assert.equal(store.leases.get("ns/demo")?.spec?.holderIdentity, "", "the acquired lease was released");
  assert.deepEqual(events, [], "a cancelled candidate does not start leading");
  assert.equal(elector.isLeader, false);
});

Deno.test("inconsistent durations are rejected with a RangeError", () => {
  const store = new FakeLeaseClient();
  assert.throws(
    () =>
      new LeaderElector(store, {
        leaseName: "x",
        namespace: "ns",
        leaseDurationMs: 5_000,
        renewDeadlineMs: 10_000,
      }),
    RangeError,
  );
  assert.throws(() => new LeaderElector(store, { leaseName: "", namespace: "ns" }), TypeError);
  const e = new LeaderElector(store, { leaseName: "x", namespace: "ns" });
  assert.match(e.identity, /_[0-9a-f]{8}$/);
});

/** A Lease client whose replace answers arrive `delay.ms` (on the fake clock) after the store applied them. */
function slowRenewals(store: LeaseClient, clock: FakeClock, delay: { ms: number }): LeaseClient {
  const later = async <T>(p: Promise<T>): Promise<T> => {
    const result = await p;
    if (delay.ms > 0) await new Promise((resolve) => clock.setTimer(() => resolve(undefined), delay.ms));
    return result;
  };
  return {
    get: (ref, name, o) => store.get(ref, name, o),
    create: (ref, obj, o) => store.create(ref, obj, o),
    replace: (ref, obj, o) => later(store.replace(ref, obj, o)),
  };
}

Deno.test("a slow renew answer does not extend leadership: the renew deadline counts from the request's start", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const view = clientView(store);
  const delay = { ms: 0 };
  const fence = new LeaseFence({ clock });
  const a = start(slowRenewals(view, clock, delay), clock, "a", { fence });
  await clock.advance(0);
  assert.ok(a.elector.isLeader);
  // The renewal that starts at t=2 s is answered (successfully) at t=9 s; everything after that fails.
  delay.ms = 7_000;
  await clock.advance(2_000);
  await clock.advance(7_000);
  assert.ok(a.elector.isLeader);
  view.failing = true;
  delay.ms = 0;
  // Deadline = 2 s (when the successful renewal started) + 10 s = 12 s. Counted from the answer it
  // would be 19 s.
  await clock.advance(2_999);
  assert.ok(fence.valid, "t=11.999 s: still inside the renew deadline");
  assert.ok(a.elector.isLeader);
  await clock.advance(1);
  assert.equal(fence.valid, false, "t=12 s: the fence closes at the deadline");
  await a.done;
  assert.equal(a.elector.isLeader, false, "t=12 s: leadership ended at the deadline, not 7 s later");
  assert.ok(a.leadingSignals[0]?.aborted);
  assert.ok(a.leadingSignals[0]?.reason instanceof LeaderElectionLostError);
});

Deno.test("after a pause past the renew deadline the fence refuses writes before any timer ran, and leading ends without another renewal", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const fence = new LeaseFence({ clock });
  const lost: AbortSignal[] = [];
  const a = start(store, clock, "a", {
    fence,
    onStartedLeading: (_signal, lostSignal) => void lost.push(lostSignal),
  });
  await clock.advance(0);
  await clock.advance(4_000); // renewed at 2 s and 4 s
  assert.ok(fence.valid);
  assert.ok(fence.remainingMs > 9_000);
  const writesBefore = store.writes.length;
  clock.jump(20_000); // SIGSTOP ... SIGCONT: no timer has fired yet
  assert.equal(fence.valid, false);
  assert.throws(() => fence.check(), NotLeaderError);
  assert.throws(() => fence.check(), /renew deadline passed/);
  await clock.advance(0); // now the overdue timers fire
  await a.done;
  assert.equal(a.elector.isLeader, false);
  assert.equal(store.writes.length, writesBefore, "no renewal was attempted after the deadline");
  assert.ok(lost[0]?.aborted, "the lost signal aborted");
  assert.throws(() => fence.check(), /not leading/);
});

Deno.test("after a cancel the Lease is renewed while the leading work drains, then released; lost stays quiet", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const fence = new LeaseFence({ clock });
  let finish = () => {};
  const lost: AbortSignal[] = [];
  const a = start(store, clock, "a", {
    fence,
    onStartedLeading: (_signal, lostSignal) => {
      lost.push(lostSignal);
      return new Promise<void>((resolve) => (finish = resolve));
    },
  });
  await clock.advance(0);
  a.ctl.abort();
  const renewTime = store.leases.get("ns/demo")?.spec?.renewTime;
  await clock.advance(25_000); // longer than the lease duration: renewals must go on
  assert.notEqual(store.leases.get("ns/demo")?.spec?.renewTime, renewTime);
  assert.equal(store.leases.get("ns/demo")?.spec?.holderIdentity, "a");
  assert.ok(fence.valid, "draining reconciles may still write");
  assert.ok(a.elector.isLeader);
  assert.equal(lost[0]?.aborted, false);
  finish();
  await clock.advance(0);
  await a.done;
  assert.equal(store.leases.get("ns/demo")?.spec?.holderIdentity, "", "released after the work returned");
  assert.equal(fence.valid, false);
  assert.equal(lost[0]?.aborted, false, "a cancel is not a loss");
});

/**
 * A Lease client whose writes reach the store at once but are answered `delay.ms` (fake clock) later, and
 * whose pending answers reject when the request's signal aborts, as a fetch does: the server has committed
 * the write, the caller never learns it.
 */
function writesOnTheWire(store: LeaseClient, clock: FakeClock, delay: { ms: number }): LeaseClient {
  const answer = async <T>(write: Promise<T>, signal: AbortSignal | undefined): Promise<T> => {
    const result = await write;
    if (delay.ms <= 0) return result;
    await new Promise((resolve, reject) => {
      const timer = clock.setTimer(() => resolve(undefined), delay.ms);
      signal?.addEventListener("abort", () => {
        timer.cancel();
        reject(signal.reason);
      }, { once: true });
    });
    return result;
  };
  return {
    get: (ref, name, o) => store.get(ref, name, o),
    create: (ref, obj, o) => answer(store.create(ref, obj, o), o?.signal),
    replace: (ref, obj, o) => answer(store.replace(ref, obj, o), o?.signal),
  };
}

Deno.test("a cancel that lands while a renewal is on the wire still releases the lease", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const delay = { ms: 0 };
  const a = start(writesOnTheWire(store, clock, delay), clock, "a");
  await clock.advance(0);
  assert.ok(a.elector.isLeader);
  delay.ms = 500;
  await clock.advance(2_000); // the renewal is committed; its answer is due at 2.5 s
  const renewal = store.writes.length;
  a.ctl.abort(); // SIGTERM now: nothing in flight, so the leading work returns at once
  await clock.advance(0);
  await clock.advance(5_000);
  await a.done;
  assert.equal(store.leases.get("ns/demo")?.spec?.holderIdentity, "", "released, not left to expire");
  assert.equal(store.writes.length, renewal + 1, "one more write: the release");
  assert.deepEqual(a.events, ["leader:a", "started", "stopped"]);
});

Deno.test("a cancel that lands while the acquiring write is on the wire releases the lease, without leading", async () => {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  const a = start(writesOnTheWire(store, clock, { ms: 500 }), clock, "a");
  await clock.advance(0); // created, naming "a"; the answer is due at 0.5 s
  assert.equal(store.leases.get("ns/demo")?.spec?.holderIdentity, "a");
  a.ctl.abort();
  await clock.advance(0);
  await clock.advance(5_000);
  await a.done;
  assert.equal(store.leases.get("ns/demo")?.spec?.holderIdentity, "", "released, not left to expire");
  assert.deepEqual(a.events.filter((e) => e === "started"), [], "a cancelled candidate does not lead");
});
