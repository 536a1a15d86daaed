import assert from "node:assert/strict";
import { LEASES } from "../../lib/client/resources.ts";
import {
  LeaderElectionLostError,
  Manager,
  type ManagerOptions,
  type Request,
} from "../../lib/controller/mod.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";
import { clientView, FakeLeaseClient } from "../leader/fake_lease_client.ts";
import { FakeInformers, fooRef, obj } from "./fake_informers.ts";

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
  const calls: Request[] = [];
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
