/**
 * Real changes first: what a controller queues from an informer's list (a 10,000-object start-up backlog)
 * or a resync waits behind watch events, and a re-queued key keeps its place. A real Informer over a
 * scripted list and a watch body the test writes to, on a fake clock.
 */
import assert from "node:assert/strict";
import { Informer } from "../../lib/cache/informer.ts";
import { Controller, type ControllerOptions, type InformerSource } from "../../lib/controller/mod.ts";
import type { KubeObject, ResourceRef } from "../../lib/resources/object.ts";
import { exponentialFailureRateLimiter } from "../../lib/queue/mod.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";
import { cm, configMaps, line, page, PushBody, PushListWatcher } from "../watch/_helpers.ts";
import { FakeInformers, fooRef, obj } from "./fake_informers.ts";

const N = 10_000;

/** A controller of ConfigMaps on one real Informer whose first list holds `n` objects. */
function setup(
  options: Partial<ControllerOptions> = {},
  informerOptions: { resyncPeriodMs?: number } = {},
  n = N,
) {
  const clock = new FakeClock();
  const body = new PushBody();
  const lw = new PushListWatcher("20000", [body]);
  lw.listAnswers = [page(Array.from({ length: n }, (_, i) => cm(`init-${i}`, String(i + 1))), "20000")];
  const informer = new Informer(lw, configMaps, {
    clock,
    initialList: "paged",
    idleTimeoutMs: 1e9,
    ...informerOptions,
  });
  const informers: InformerSource = {
    informer: <T extends KubeObject>(_ref: ResourceRef<T>) => informer as unknown as Informer<T>,
  };
  const reconciled: string[] = [];
  let hold: PromiseWithResolvers<void> | undefined;
  const controller = new Controller(informers, {
    name: "cms",
    for: configMaps,
    clock,
    reconcile: async (request) => {
      reconciled.push(request.name);
      if (hold) await hold.promise;
    },
    ...options,
  });
  const stop = new AbortController();
  const run = () => {
    const informing = informer.run({ signal: stop.signal });
    const running = controller.run({ signal: stop.signal });
    return async () => {
      stop.abort();
      hold?.resolve();
      await Promise.all([informing, running]);
    };
  };
  return {
    clock,
    lw,
    body,
    reconciled,
    run,
    /** Makes the next reconciles wait until `release()`. */
    hold: () => void (hold = Promise.withResolvers<void>()),
    release: () => {
      const h = hold;
      hold = undefined;
      h?.resolve();
    },
  };
}

async function until(cond: () => boolean, clock: FakeClock, what: string): Promise<void> {
  for (let i = 0; i < 2_000 && !cond(); i++) await clock.advance(0);
  assert.ok(cond(), `not reached: ${what}`);
}

Deno.test("during a 10,000-object initial sync a real change is reconciled before the remaining initial items", async () => {
  const t = setup();
  t.hold();
  const stop = t.run();
  await until(() => t.reconciled.length === 1, t.clock, "the first initial item is being reconciled");
  // Created while the start-up backlog waits: a watch event.
  await t.body.push(line("ADDED", cm("created-now", "20001")));
  t.release();
  await until(() => t.reconciled.length >= 3, t.clock, "two more reconciles");
  assert.deepEqual(t.reconciled.slice(0, 3), ["init-0", "created-now", "init-1"]);
  await stop();
});

Deno.test("with prioritizeChanges: false the real change waits behind the whole initial list", async () => {
  const t = setup({ prioritizeChanges: false });
  t.hold();
  const stop = t.run();
  await until(() => t.reconciled.length === 1, t.clock, "the first initial item is being reconciled");
  await t.body.push(line("ADDED", cm("created-now", "20001")));
  t.release();
  await until(() => t.reconciled.length === N + 1, t.clock, "every reconcile");
  assert.equal(t.reconciled.at(-1), "created-now");
  await stop();
});

Deno.test("a resync of 10,000 objects does not delay a real change", async () => {
  const t = setup({}, { resyncPeriodMs: 1_000 });
  const stop = t.run();
  await until(() => t.reconciled.length === N, t.clock, "the initial list reconciled");
  t.hold();
  await t.clock.advance(1_000); // every cached object again, as onUpdate(obj, obj)
  await until(() => t.reconciled.length === N + 1, t.clock, "the first resync reconcile");
  await t.body.push(line("MODIFIED", cm("init-9999", "20002")));
  t.release();
  await until(() => t.reconciled.length >= N + 3, t.clock, "two more reconciles");
  assert.deepEqual(t.reconciled.slice(N, N + 3), ["init-0", "init-9999", "init-1"]);
  await stop();
});

Deno.test("what a relist finds changed waits behind a watch event that follows it", async () => {
  const t = setup({}, {}, 100);
  const stop = t.run();
  await until(() => t.reconciled.length === 100, t.clock, "the initial list reconciled");
  // The watch is too old (410): the informer lists again, and all 100 objects changed meanwhile.
  t.lw.listAnswers.push(
    page(Array.from({ length: 100 }, (_, i) => cm(`init-${i}`, String(30_000 + i))), "30100"),
  );
  const after = new PushBody();
  t.lw.pushBodies.push(after);
  t.hold();
  await t.body.push(line("ERROR", { kind: "Status", code: 410, reason: "Expired", status: "Failure" }));
  await until(() => t.reconciled.length === 101, t.clock, "the first relist reconcile");
  await until(() => t.lw.watches.length >= 2, t.clock, "the watch after the relist");
  await after.push(line("ADDED", cm("created-now", "30101")));
  t.release();
  await until(() => t.reconciled.length >= 103, t.clock, "two more reconciles");
  assert.deepEqual(t.reconciled.slice(100, 103), ["init-0", "created-now", "init-1"]);
  await stop();
});

/** A Foo controller on fake informers whose reconcile fails as `fail` says, and can be held. */
function failing(fail: (name: string, attempt: number) => boolean) {
  const clock = new FakeClock();
  const informers = new FakeInformers();
  const foos = informers.get(fooRef);
  const reconciled: string[] = [];
  const attempts = new Map<string, number>();
  let hold: PromiseWithResolvers<void> | undefined;
  const controller = new Controller(informers, {
    name: "foo",
    for: fooRef,
    clock,
    rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 5 }),
    reconcile: async ({ name }) => {
      const attempt = (attempts.get(name) ?? 0) + 1;
      attempts.set(name, attempt);
      reconciled.push(name);
      if (fail(name, attempt)) throw new Error(`${name} failed`);
      if (hold) await hold.promise;
    },
  });
  const stop = new AbortController();
  return {
    clock,
    foos,
    reconciled,
    start: () => {
      informers.syncAll();
      return controller.run({ signal: stop.signal });
    },
    stop: () => {
      hold?.resolve();
      stop.abort();
    },
    hold: () => void (hold = Promise.withResolvers<void>()),
    release: () => {
      const h = hold;
      hold = undefined;
      h?.resolve();
    },
  };
}

Deno.test("a failing real change is retried ahead of the initial items still waiting", async () => {
  const t = failing((name, attempt) => name === "changed" && attempt === 1);
  for (let i = 0; i < 100; i++) t.foos.add(obj(`init-${i}`)); // before the sync: the initial list
  const running = t.start();
  t.foos.add(obj("changed")); // after it: a watch event
  t.hold();
  await flush();
  // "changed" failed at once; init-0 holds the worker while its retry's backoff (5 ms) passes.
  assert.deepEqual(t.reconciled, ["changed", "init-0"]);
  await t.clock.advance(5);
  t.release();
  await flush();
  assert.deepEqual(t.reconciled.slice(0, 4), ["changed", "init-0", "changed", "init-1"]);
  t.stop();
  await running;
});

Deno.test("a failing initial item is retried behind the other initial items, not ahead of them", async () => {
  const t = failing((name, attempt) => name === "init-0" && attempt === 1);
  for (let i = 0; i < 5; i++) t.foos.add(obj(`init-${i}`));
  const running = t.start();
  t.hold();
  await flush();
  // init-0 failed at once (back in 5 ms, at the initial list's priority); init-1 holds the worker.
  assert.deepEqual(t.reconciled, ["init-0", "init-1"]);
  await t.clock.advance(5);
  t.release();
  await flush();
  assert.deepEqual(t.reconciled, ["init-0", "init-1", "init-2", "init-3", "init-4", "init-0"]);
  t.stop();
  await running;
});
