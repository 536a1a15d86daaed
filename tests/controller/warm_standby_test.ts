/**
 * Warm and cold standbys: by default a replica that does not lead still runs its informers (its caches are
 * warm when it takes over); `warmStandby: false` starts them only once it leads.
 */
import assert from "node:assert/strict";
import { LEASES } from "../../lib/resources/refs.ts";
import { Manager, type ManagerOptions, type ReconcileRequest } from "../../lib/controller/mod.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";
import { FakeLeaseClient } from "../leader/fake_lease_client.ts";
import { FakeInformers, fooRef, obj } from "./fake_informers.ts";

/** Informers that "list" when started: `sync()` then. */
class FakeFactory extends FakeInformers {
  starts = 0;
  start(_signal: AbortSignal): void {
    this.starts++;
    this.syncAll();
  }
}

/** A Manager of one Foo controller, competing for a Lease that "other" holds. */
async function standby(options: Partial<ManagerOptions>) {
  const clock = new FakeClock();
  const store = new FakeLeaseClient();
  await store.create(LEASES, {
    metadata: { name: "foo-lock", namespace: "kube-system" },
    spec: { holderIdentity: "other", leaseDurationSeconds: 15 },
  }, { namespace: "kube-system" });
  const factory = new FakeFactory();
  const manager = new Manager(factory, {
    metricsAddress: "0",
    healthAddress: "0",
    clock,
    leaderElection: {
      client: store,
      leaseName: "foo-lock",
      namespace: "kube-system",
      identity: "me",
      jitterFactor: 0,
    },
    ...options,
  });
  const calls: ReconcileRequest[] = [];
  manager.controller({
    name: "foo",
    for: fooRef,
    reconcile: (r) => {
      calls.push(r);
      return Promise.resolve();
    },
  });
  factory.get(fooRef).add(obj("a"));
  const stop = new AbortController();
  const done = manager.run({ signal: stop.signal });
  await clock.advance(10_000);
  /** The other holder releases the Lease; we take it on our next attempt. */
  const handOver = async () => {
    const lease = store.leases.get("kube-system/foo-lock")!;
    lease.spec!.holderIdentity = "";
    lease.metadata.resourceVersion = "100";
    await clock.advance(2_000);
    await flush();
  };
  return { factory, manager, calls, handOver, stop: () => (stop.abort(), done) };
}

Deno.test("by default a standby starts its informers and is ready; it reconciles once it leads", async () => {
  const t = await standby({});
  assert.equal(t.manager.isLeader, false);
  assert.equal(t.factory.starts, 1, "informers run while standing by");
  assert.ok(t.manager.ready());
  assert.equal(t.calls.length, 0);
  await t.handOver();
  assert.ok(t.manager.isLeader);
  assert.equal(t.factory.starts, 1);
  assert.deepEqual(t.calls.map((c) => c.name), ["a"]);
  await t.stop();
});

Deno.test("warmStandby: false starts the informers only once leading; the cold standby reports ready", async () => {
  const t = await standby({ warmStandby: false });
  assert.equal(t.manager.isLeader, false);
  assert.equal(t.factory.starts, 0, "no informer runs while standing by");
  assert.deepEqual(t.manager.readiness(), { ready: true, failures: [] });
  await t.handOver();
  assert.ok(t.manager.isLeader);
  assert.equal(t.factory.starts, 1, "started on gaining leadership");
  assert.deepEqual(t.calls.map((c) => c.name), ["a"]);
  await t.stop();
});

Deno.test("without leader election warmStandby: false changes nothing: the informers start at once", async () => {
  const factory = new FakeFactory();
  const manager = new Manager(factory, { metricsAddress: "0", healthAddress: "0", warmStandby: false });
  manager.controller({ name: "foo", for: fooRef, reconcile: async () => {} });
  const stop = new AbortController();
  const done = manager.run({ signal: stop.signal });
  await flush();
  assert.equal(factory.starts, 1);
  stop.abort();
  await done;
});
