import assert from "node:assert/strict";
import type { Lease } from "../../lib/leader/mod.ts";
import { leaseRecord, releasedLease } from "../../lib/leader/lease_record.ts";

const holder = { identity: "a", name: "demo", namespace: "ns", leaseMs: 15_000 };
const t0 = Date.UTC(2026, 0, 1);

Deno.test("a created Lease names us, with no transitions yet", () => {
  const lease = leaseRecord(undefined, holder, t0, false);
  assert.deepEqual(lease.metadata, { name: "demo", namespace: "ns" });
  assert.deepEqual(lease.spec, {
    holderIdentity: "a",
    leaseDurationSeconds: 15,
    acquireTime: "2026-01-01T00:00:00.000000Z",
    renewTime: "2026-01-01T00:00:00.000000Z",
    leaseTransitions: 0,
  });
});

Deno.test("a renewal keeps acquireTime and the transition count; a takeover counts one", () => {
  const ours: Lease = leaseRecord(undefined, holder, t0, false);
  ours.metadata.resourceVersion = "5";
  const renewed = leaseRecord(ours, holder, t0 + 2_000, true);
  assert.equal(renewed.spec?.acquireTime, "2026-01-01T00:00:00.000000Z");
  assert.equal(renewed.spec?.renewTime, "2026-01-01T00:00:02.000000Z");
  assert.equal(renewed.spec?.leaseTransitions, 0);
  assert.equal(renewed.metadata.resourceVersion, "5", "the write is conditional on what we read");
  const theirs: Lease = { ...ours, spec: { ...ours.spec, holderIdentity: "b", preferredHolder: "kept" } };
  const taken = leaseRecord(theirs, holder, t0 + 4_000, false);
  assert.equal(taken.spec?.acquireTime, "2026-01-01T00:00:04.000000Z");
  assert.equal(taken.spec?.leaseTransitions, 1);
  assert.equal(taken.spec?.preferredHolder, "kept", "fields we do not manage survive");
});

Deno.test("a released Lease has no holder and a one second duration", () => {
  const released = releasedLease(leaseRecord(undefined, holder, t0, false), t0 + 1_000);
  assert.equal(released.spec?.holderIdentity, "");
  assert.equal(released.spec?.leaseDurationSeconds, 1);
  assert.equal(released.spec?.renewTime, "2026-01-01T00:00:01.000000Z");
});
