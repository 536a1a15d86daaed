import assert from "node:assert/strict";
import { flush } from "../_util/fake_clock.ts";
import { setup } from "./controller_setup.ts";
import { fooRef, obj } from "./fake_informers.ts";

Deno.test("shutdown lets an in-flight reconcile finish, stops taking work, then resolves", async () => {
  const events: string[] = [];
  let release = () => {};
  const t = setup({
    reconcile: (r, ctx) => {
      events.push(`start ${r.name}`);
      return new Promise<void>((resolve) => {
        release = () => {
          events.push(`finish ${r.name} aborted=${ctx.signal.aborted}`);
          resolve();
        };
      });
    },
  });
  const { done } = await t.start();
  t.foos.add(obj("a"));
  t.foos.add(obj("b"));
  await flush();
  t.ctl.abort();
  let resolved = false;
  void done.then(() => (resolved = true));
  await flush();
  assert.equal(resolved, false);
  release();
  await done;
  assert.deepEqual(events, ["start a", "finish a aborted=false"]);
  assert.equal(t.informers.get(fooRef).subscribers, 0, "handlers are removed");
});

Deno.test("after the grace period in-flight reconciles are aborted and run resolves once they return", async () => {
  const t = setup({
    gracefulShutdownMs: 5_000,
    reconcile: (_r, ctx) =>
      new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true })),
  });
  const { done } = await t.start();
  t.foos.add(obj("stuck"));
  await flush();
  t.ctl.abort();
  await flush();
  await t.clock.advance(4_999);
  assert.ok(!t.lines.some((l) => /grace period/.test(l.msg)));
  await t.clock.advance(1);
  await done;
  assert.ok(t.lines.some((l) => l.level === "warn" && /grace period/.test(l.msg)));
});

Deno.test("after the grace period run still waits for the aborted reconciles to return", async () => {
  const events: string[] = [];
  const t = setup({
    gracefulShutdownMs: 5_000,
    reconcile: (_r, ctx) =>
      new Promise<void>((resolve) => {
        // Winding down (e.g. a last status write) takes a second after the hard stop.
        ctx.signal.addEventListener("abort", () => {
          t.clock.setTimer(() => {
            events.push("reconcile returned");
            resolve();
          }, 1_000);
        }, { once: true });
      }),
  });
  const { done } = await t.start();
  void done.then(() => events.push("run resolved"));
  t.foos.add(obj("stuck"));
  await flush();
  t.ctl.abort();
  await flush();
  await t.clock.advance(5_000);
  assert.deepEqual(events, [], "run must not resolve while the aborted reconcile is still running");
  await t.clock.advance(1_000);
  await done;
  assert.deepEqual(events, ["reconcile returned", "run resolved"]);
});

Deno.test("a reconcile that ignores the hard stop is waited for 5 more seconds, then its key is logged", async () => {
  const t = setup({
    gracefulShutdownMs: 5_000,
    reconcile: () => new Promise<void>(() => {}),
  });
  const { done } = await t.start();
  let resolved = false;
  void done.then(() => (resolved = true));
  t.foos.add(obj("stuck"));
  await flush();
  t.ctl.abort();
  await flush();
  await t.clock.advance(5_000);
  await t.clock.advance(4_999);
  assert.equal(resolved, false, "run resolved before the hard-stop bound");
  await t.clock.advance(1);
  await done;
  const warning = t.lines.find((l) => l.level === "warn" && /still running/.test(l.msg));
  assert.deepEqual(warning?.fields["inFlight"], ["ns/stuck"]);
});
