import assert from "node:assert/strict";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { obj } from "./fake_informers.ts";
import { setup } from "./controller_setup.ts";

const GAUGE = 'kubeloop_controller_stuck_terminating_objects{controller="foo"}';

Deno.test("a primary object waiting on finalizers past the threshold is logged once and counted", async () => {
  const registry = new MetricsRegistry();
  const s = setup({ reconcile: () => Promise.resolve(), registry, stuckTerminatingAfterMs: 300_000 });
  const deletedAt = new Date(s.clock.now()).toISOString();
  s.foos.add(obj("stuck", { deletionTimestamp: deletedAt, finalizers: ["example.com/cleanup"] }));
  s.foos.add(obj("leaving", { deletionTimestamp: deletedAt }));
  s.foos.add(obj("alive", { finalizers: ["example.com/cleanup"] }));
  const { done } = await s.start();
  await s.clock.advance(240_000);
  assert.equal(s.lines.filter((l) => l.level === "warn").length, 0, "not yet past the threshold");
  await s.clock.advance(60_000);
  const warnings = s.lines.filter((l) => l.msg.startsWith("Object stuck terminating"));
  assert.equal(warnings.length, 1);
  assert.deepEqual(warnings[0]?.fields, {
    controller: "foo",
    key: "ns/stuck",
    terminatingForS: 300,
    finalizers: ["example.com/cleanup"],
  });
  assert.match(registry.render(), new RegExp(`${GAUGE.replace(/[{}"]/g, "\\$&")} 1\\n`));
  await s.clock.advance(60_000);
  assert.equal(s.lines.filter((l) => l.msg.startsWith("Object stuck terminating")).length, 1, "logged once");
  s.foos.remove(obj("stuck"));
  await s.clock.advance(60_000);
  assert.match(registry.render(), new RegExp(`${GAUGE.replace(/[{}"]/g, "\\$&")} 0\\n`));
  s.ctl.abort();
  await done;
});
