import assert from "node:assert/strict";
import { KubeClient } from "../../lib/client/mod.ts";
import { LEASES } from "../../lib/resources/refs.ts";
import { LeaseFence } from "../../lib/leader/mod.ts";
import {
  LeaderElectionLostError,
  Manager,
  type ManagerOptions,
  type ReconcileRequest,
} from "../../lib/controller/mod.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";
import { clientView, FakeLeaseClient } from "../leader/fake_lease_client.ts";
import { json, ScriptedTransport } from "../_util/scripted_transport.ts";
import type { Transport } from "../../lib/http/types.ts";
import { FakeInformers, fooRef, obj } from "./fake_informers.ts";
import { MemoryLogger } from "../../lib/testing/memory_logger.ts";

class FakeFactory extends FakeInformers {
  started = false;
  start(_signal: AbortSignal): void {
    this.started = true;
    this.syncAll();
  }
}

function setup(options: ManagerOptions = {}) {
  const clock = new FakeClock();
  const factory = new FakeFactory();
  const manager = new Manager(factory, { metricsAddress: "0", healthAddress: "0", clock, ...options });
  const calls: ReconcileRequest[] = [];
  let hold: Promise<void> | undefined;
  const order: string[] = [];
  manager.controller({
    name: "foo",
    for: fooRef,
    reconcile: async (r) => {
      calls.push(r);
      order.push(`start ${r.name}`);
      if (hold) await hold;
      order.push(`end ${r.name}`);
    },
  });
  const ctl = new AbortController();
  return {
    clock,
    factory,
    manager,
    calls,
    order,
    ctl,
    hold: (p: Promise<void>) => void (hold = p),
    foos: factory.get(fooRef),
  };
}

Deno.test("without leader election the manager runs controllers and reports ready", async () => {
  const t = setup();
  t.foos.add(obj("a"));
  assert.equal(t.manager.ready(), false);
  const done = t.manager.run({ signal: t.ctl.signal });
  await flush();
  assert.ok(t.factory.started);
  assert.ok(t.manager.ready());
  assert.deepEqual(t.calls.map((c) => c.name), ["a"]);
  t.ctl.abort();
  await done;
});

Deno.test("shutdown lets the in-flight reconcile finish, then releases the lease and resolves", async () => {
  const store = new FakeLeaseClient();
  const t = setup({
    leaderElection: { client: store, leaseName: "foo-lock", namespace: "kube-system", identity: "me" },
  });
  let release = () => {};
  t.hold(new Promise<void>((r) => (release = r)));
  t.foos.add(obj("a"));
  const done = t.manager.run({ signal: t.ctl.signal });
  await flush();
  assert.ok(t.manager.isLeader);
  assert.deepEqual(t.order, ["start a"]);
  t.ctl.abort();
  await flush();
  assert.equal(
    store.leases.get("kube-system/foo-lock")?.spec?.holderIdentity,
    "me",
    "lease kept while draining",
  );
  release();
  await done;
  assert.deepEqual(t.order, ["start a", "end a"]);
  assert.equal(store.leases.get("kube-system/foo-lock")?.spec?.holderIdentity, "", "released after draining");
  assert.match(t.manager.registry.render(), /leader_election_master_status\{name="foo-lock"\} 0/);
});

Deno.test("a shutdown signal that aborted before run (SIGTERM during startup) stops it at once, without leading", async () => {
  const store = new FakeLeaseClient();
  const t = setup({
    leaderElection: { client: store, leaseName: "foo-lock", namespace: "kube-system", identity: "me" },
  });
  t.foos.add(obj("a"));
  t.ctl.abort();
  let finished = false;
  const done = t.manager.run({ signal: t.ctl.signal }).then(() => void (finished = true));
  await t.clock.advance(5_000);
  assert.ok(finished, "run resolved");
  await done;
  assert.deepEqual(t.calls, [], "nothing reconciled");
  assert.equal(store.writes.length, 0, "the Lease was never taken");
});

Deno.test("controllers do not run while another process leads, and start once it releases", async () => {
  const store = new FakeLeaseClient();
  await store.create(LEASES, {
    metadata: { name: "foo-lock", namespace: "kube-system" },
    spec: { holderIdentity: "other", leaseDurationSeconds: 15 },
  }, { namespace: "kube-system" });
  const t = setup({
    leaderElection: {
      client: store,
      leaseName: "foo-lock",
      namespace: "kube-system",
      identity: "me",
      jitterFactor: 0,
    },
  });
  t.foos.add(obj("a"));
  const done = t.manager.run({ signal: t.ctl.signal });
  await t.clock.advance(10_000);
  assert.equal(t.manager.isLeader, false);
  assert.ok(t.manager.ready(), "caches are warm on a standby");
  assert.equal(t.calls.length, 0);
  const lease = store.leases.get("kube-system/foo-lock");
  assert.ok(lease?.spec);
  lease.spec.holderIdentity = "";
  lease.metadata.resourceVersion = "100";
  await t.clock.advance(2_000);
  assert.ok(t.manager.isLeader);
  assert.deepEqual(t.calls.map((c) => c.name), ["a"]);
  t.ctl.abort();
  await done;
});

Deno.test("losing leadership stops the controllers and rejects with LeaderElectionLostError", async () => {
  const store = new FakeLeaseClient();
  const view = clientView(store);
  const t = setup({
    leaderElection: { client: view, leaseName: "foo-lock", namespace: "kube-system", identity: "me" },
  });
  const done = t.manager.run({ signal: t.ctl.signal });
  await flush();
  assert.ok(t.manager.isLeader);
  view.failing = true;
  const rejected = assert.rejects(done, LeaderElectionLostError);
  await t.clock.advance(12_000);
  await rejected;
  assert.equal(t.manager.isLeader, false);
});

Deno.test("losing leadership aborts in-flight reconciles at once, without the grace period", async () => {
  const store = new FakeLeaseClient();
  const view = clientView(store);
  const clock = new FakeClock();
  const factory = new FakeFactory();
  const manager = new Manager(factory, {
    metricsAddress: "0",
    healthAddress: "0",
    clock,
    gracefulShutdownMs: 30_000,
    leaderElection: { client: view, leaseName: "foo-lock", namespace: "kube-system", identity: "me" },
  });
  const aborts: { at: number; reason: unknown }[] = [];
  manager.controller({
    name: "foo",
    for: fooRef,
    // A long reconcile that returns only when its signal aborts.
    reconcile: (_r, ctx) =>
      new Promise<void>((resolve) =>
        ctx.signal.addEventListener("abort", () => {
          aborts.push({ at: clock.now(), reason: ctx.signal.reason });
          resolve();
        }, { once: true })
      ),
  });
  factory.get(fooRef).add(obj("a"));
  const ctl = new AbortController();
  const done = manager.run({ signal: ctl.signal });
  await flush();
  assert.ok(manager.isLeader);
  const started = clock.now();
  view.failing = true;
  const rejected = assert.rejects(done, LeaderElectionLostError);
  await clock.advance(10_000); // the renew deadline
  assert.equal(aborts.length, 1, "the in-flight reconcile was aborted when leadership was lost");
  assert.equal(aborts[0]!.at - started, 10_000);
  assert.ok(aborts[0]!.reason instanceof LeaderElectionLostError);
  await rejected;
});

Deno.test("with a fence, a reconcile's write through the KubeClient is refused after a pause past the renew deadline", async () => {
  const store = new FakeLeaseClient();
  const clock = new FakeClock();
  const fence = new LeaseFence({ clock });
  const transport = new ScriptedTransport(() => json(200, obj("a")));
  const cfg = {
    server: new URL("https://api.example:6443"),
    tls: {},
    namespace: "ns",
    source: "test",
    inCluster: false,
    credentials: { get: () => Promise.resolve({ token: "t" }), invalidate: () => {} },
  };
  await using client = new KubeClient(cfg, { transport, clock, writeFence: fence });
  const factory = new FakeFactory();
  const manager = new Manager(factory, {
    metricsAddress: "0",
    healthAddress: "0",
    clock,
    leaderElection: { client: store, leaseName: "foo-lock", namespace: "ns", identity: "me", fence },
  });
  let resume = () => {};
  const outcome: string[] = [];
  manager.controller({
    name: "foo",
    for: fooRef,
    reconcile: async (r, ctx) => {
      await client.get(fooRef, r.name, { signal: ctx.signal }); // a read before the pause
      await new Promise<void>((resolve) => (resume = resolve));
      try {
        await client.patch(fooRef, r.name, { metadata: { labels: { x: "y" } } }, {
          type: "merge",
          signal: ctx.signal,
        });
        outcome.push("written");
      } catch (error) {
        outcome.push((error as Error).name);
      }
    },
  });
  factory.get(fooRef).add(obj("a"));
  const ctl = new AbortController();
  const done = manager.run({ signal: ctl.signal });
  await flush();
  assert.ok(manager.isLeader);
  assert.deepEqual(transport.requests.map((r) => r.method), ["GET"]);
  clock.jump(20_000); // the process is paused past its renew deadline (and the lease duration)
  resume(); // the first thing to run after the pause is the reconcile's write
  await flush();
  assert.deepEqual(outcome, ["NotLeaderError"]);
  assert.deepEqual(transport.requests.map((r) => r.method), ["GET"], "no write reached the transport");
  const rejected = assert.rejects(done, LeaderElectionLostError);
  await clock.advance(0);
  await rejected;
});

Deno.test("a write pending when leadership is lost is cancelled at once, not left to finish", async () => {
  const store = new FakeLeaseClient();
  const view = clientView(store);
  const clock = new FakeClock();
  // An API server that never answers writes; the request ends only when its signal aborts.
  const cancelled: unknown[] = [];
  const hanging: Transport = {
    request: (req) =>
      new Promise((_resolve, reject) =>
        req.signal?.addEventListener("abort", () => {
          cancelled.push(req.signal?.reason);
          reject(req.signal?.reason);
        }, { once: true })
      ),
    close: () => {},
  };
  const cfg = {
    server: new URL("https://api.example:6443"),
    tls: {},
    namespace: "ns",
    source: "test",
    inCluster: false,
    credentials: { get: () => Promise.resolve({ token: "t" }), invalidate: () => {} },
  };
  await using client = new KubeClient(cfg, { transport: hanging, clock });
  const factory = new FakeFactory();
  const manager = new Manager(factory, {
    metricsAddress: "0",
    healthAddress: "0",
    clock,
    leaderElection: { client: view, leaseName: "foo-lock", namespace: "ns", identity: "me" },
  });
  manager.controller({
    name: "foo",
    for: fooRef,
    reconcile: async (r, ctx) => {
      await client.patch(fooRef, r.name, { metadata: { labels: { x: "y" } } }, {
        type: "merge",
        signal: ctx.signal,
      });
    },
  });
  factory.get(fooRef).add(obj("a"));
  const done = manager.run({ signal: new AbortController().signal });
  await flush();
  assert.ok(manager.isLeader);
  view.failing = true;
  const rejected = assert.rejects(done, LeaderElectionLostError);
  await clock.advance(9_999);
  assert.equal(cancelled.length, 0, "still leading: the write is still pending");
  await clock.advance(1);
  assert.equal(cancelled.length, 1, "the pending write was cancelled at the renew deadline");
  assert.ok(cancelled[0] instanceof LeaderElectionLostError);
  await rejected;
});

Deno.test("the Manager's event recorder writes the last reconcile's events before the Lease is released", async () => {
  const store = new FakeLeaseClient();
  const clock = new FakeClock();
  const fence = new LeaseFence({ clock });
  // Each write the server receives, with who held the Lease at that moment.
  const writes: string[] = [];
  const transport = new ScriptedTransport((req) => {
    writes.push(`${req.method} while held by "${store.leases.get("ns/foo-lock")?.spec?.holderIdentity}"`);
    return json(req.method === "POST" ? 201 : 200, JSON.parse(req.body ?? "{}"));
  });
  const cfg = {
    server: new URL("https://api.example:6443"),
    tls: {},
    namespace: "ns",
    source: "test",
    inCluster: false,
    credentials: { get: () => Promise.resolve({ token: "t" }), invalidate: () => {} },
  };
  // The reconciles' client, fenced like the reference controller's: no write once the Lease is gone.
  await using client = new KubeClient(cfg, { transport, clock, writeFence: fence });
  const factory = new FakeFactory();
  const logger = new MemoryLogger();
  const manager = new Manager(factory, {
    metricsAddress: "0",
    healthAddress: "0",
    clock,
    logger,
    leaderElection: { client: store, leaseName: "foo-lock", namespace: "ns", identity: "me", fence },
  });
  const recorder = manager.eventRecorder(client, { reportingController: "example.com/foo" });
  manager.controller({
    name: "foo",
    for: fooRef,
    reconcile: (r) => {
      // The same event twice: the repeat becomes a series update, held back until flushed.
      for (let i = 0; i < 2; i++) {
        recorder.record(obj(r.name), { type: "Normal", reason: "Synced", action: "Reconcile", note: "done" });
      }
      return Promise.resolve();
    },
  });
  factory.get(fooRef).add(obj("a"));
  const ctl = new AbortController();
  const done = manager.run({ signal: ctl.signal });
  await flush();
  assert.ok(manager.isLeader);
  assert.deepEqual(writes, ['POST while held by "me"'], "the first event went out at once; its repeat waits");
  ctl.abort();
  await done;
  assert.deepEqual(
    writes,
    ['POST while held by "me"', 'PATCH while held by "me"'],
    "flushed before the release",
  );
  assert.equal(store.leases.get("ns/foo-lock")?.spec?.holderIdentity, "", "then the Lease was released");
  assert.deepEqual(logger.messages("warn"), [], "no NotLeaderError warnings");
});
