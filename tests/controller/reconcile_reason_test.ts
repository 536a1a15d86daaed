/**
 * Each reconcile's log lines name why it ran: the change that queued it (kind, resource, key and
 * resourceVersion of the object), "initial list", "relist", "resync", "requeue after error", "requeue",
 * "requeueAfter" or "enqueue"; when several triggers collapsed into one queued key, the first and the count.
 */
import assert from "node:assert/strict";
import type { Action, ReconcileRequest } from "../../lib/controller/mod.ts";
import { describeReason, ReasonBook } from "../../lib/controller/reconcile_reason.ts";
import { SharedInformerFactory } from "../../lib/cache/mod.ts";
import { Controller } from "../../lib/controller/mod.ts";
import { exponentialFailureRateLimiter } from "../../lib/queue/mod.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";
import { setup } from "./controller_setup.ts";
import { deploymentRef, obj } from "./fake_informers.ts";
import { memoryLogger } from "./memory_logger.ts";
import type { Line } from "./memory_logger.ts";
import { cm, configMaps, errorLine, line, page, PushBody, ScriptedListWatcher } from "../watch/_helpers.ts";
import type { RawWatchOptions } from "../../lib/client/types.ts";
import type { ResourceRef } from "../../lib/resources/object.ts";

/** The reason field of each "Reconciled" line, in order, as "key: reason". */
function reasons(lines: Line[]): string[] {
  return lines.filter((l) => l.msg === "Reconciled").map((l) => `${l.fields.key}: ${l.fields.reason}`);
}

const FOOS = "samplecontroller.k8s.io/v1alpha1/foos";

Deno.test("the initial list, watch events and an owned object's change are named with kind, key and resourceVersion", async () => {
  const t = setup({ owns: [deploymentRef], reconcile: () => Promise.resolve() });
  t.foos.add(obj("a", { resourceVersion: "7" }));
  const { done } = await t.start();
  t.foos.update(obj("a", { resourceVersion: "8" }));
  await flush();
  t.foos.add(obj("b", { resourceVersion: "9" }));
  await flush();
  t.foos.remove(obj("b", { resourceVersion: "9" }));
  await flush();
  const owner = {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    name: "a",
    uid: "u",
    controller: true,
  };
  t.informers.get(deploymentRef).add(obj("a-dep", { resourceVersion: "12", ownerReferences: [owner] }));
  await flush();
  assert.deepEqual(reasons(t.lines), [
    `ns/a: initial list of ${FOOS} ns/a (resourceVersion 7)`,
    `ns/a: update of ${FOOS} ns/a (resourceVersion 8)`,
    `ns/b: add of ${FOOS} ns/b (resourceVersion 9)`,
    `ns/b: delete of ${FOOS} ns/b (resourceVersion 9)`,
    "ns/a: add of apps/v1/deployments ns/a-dep (resourceVersion 12)",
  ]);
  t.ctl.abort();
  await done;
});

Deno.test("triggers that collapse into one queued key are named by the first, with their count", async () => {
  let release!: () => void;
  const busy = new Promise<void>((resolve) => release = resolve);
  const t = setup({
    owns: [deploymentRef],
    reconcile: (r) => r.name === "slow" ? busy : Promise.resolve(),
  });
  const { done } = await t.start();
  t.foos.add(obj("slow"));
  await flush(); // the only worker is busy with "slow" now
  t.foos.add(obj("a", { resourceVersion: "20" }));
  t.foos.update(obj("a", { resourceVersion: "21" }));
  t.foos.update(obj("a", { resourceVersion: "22" }));
  release();
  await flush();
  assert.deepEqual(reasons(t.lines), [
    `ns/slow: add of ${FOOS} ns/slow (resourceVersion 1)`,
    `ns/a: add of ${FOOS} ns/a (resourceVersion 20), first of 3 triggers`,
  ]);
  t.ctl.abort();
  await done;
});

Deno.test("requeues are named: after an error, requeue, requeueAfter; error lines carry the reason too", async () => {
  let failures = 1;
  const t = setup({
    reconcile: (r): Promise<Action> => {
      if (r.name === "failing" && failures-- > 0) return Promise.reject(new Error("boom"));
      if (r.name === "periodic") return Promise.resolve({ requeueAfterMs: 1000 });
      if (r.name === "again") return Promise.resolve({ requeue: failures-- > -2 });
      return Promise.resolve({});
    },
  });
  const { done } = await t.start();
  t.foos.add(obj("failing"));
  await flush();
  await t.clock.advance(100);
  assert.deepEqual(reasons(t.lines), [
    `ns/failing: add of ${FOOS} ns/failing (resourceVersion 1)`,
    "ns/failing: requeue after error",
  ]);
  const error = t.lines.find((l) => l.level === "error");
  assert.equal(error?.fields.reason, `add of ${FOOS} ns/failing (resourceVersion 1)`);

  t.lines.length = 0;
  t.foos.add(obj("periodic"));
  await flush();
  await t.clock.advance(1000);
  assert.deepEqual(reasons(t.lines), [
    `ns/periodic: add of ${FOOS} ns/periodic (resourceVersion 1)`,
    "ns/periodic: requeueAfter 1000 ms",
  ]);

  t.lines.length = 0;
  t.foos.add(obj("again"));
  await flush();
  await t.clock.advance(100);
  assert.deepEqual(reasons(t.lines).filter((r) => r.startsWith("ns/again")).slice(0, 2), [
    `ns/again: add of ${FOOS} ns/again (resourceVersion 1)`,
    "ns/again: requeue",
  ]);
  t.ctl.abort();
  await done;
});

Deno.test("a watch event that comes before a pending requeue runs under its own name; the requeue keeps its own", async () => {
  let failures = 1;
  const t = setup({
    reconcile: () => failures-- > 0 ? Promise.reject(new Error("boom")) : Promise.resolve(),
    rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 1000 }),
  });
  const { done } = await t.start();
  t.foos.add(obj("a", { resourceVersion: "1" }));
  await flush(); // fails: a retry is due in 1 s
  t.foos.update(obj("a", { resourceVersion: "2" }));
  await flush(); // runs now, before the retry
  await t.clock.advance(1000); // the retry comes due and runs too
  assert.deepEqual(reasons(t.lines), [
    `ns/a: add of ${FOOS} ns/a (resourceVersion 1)`,
    `ns/a: update of ${FOOS} ns/a (resourceVersion 2)`,
    "ns/a: requeue after error",
  ]);
  t.ctl.abort();
  await done;
});

Deno.test("Controller.enqueue is named as such", async () => {
  const t = setup({ reconcile: () => Promise.resolve() });
  const { done } = await t.start();
  t.c.enqueue({ namespace: "ns", name: "x" });
  await flush();
  assert.deepEqual(reasons(t.lines), ["ns/x: enqueue"]);
  t.ctl.abort();
  await done;
});

/** A list/watch source whose watch bodies the test writes to. */
class PushScript extends ScriptedListWatcher {
  constructor(lists: ReturnType<typeof page>[], readonly pushBodies: PushBody[]) {
    super(lists, []);
  }
  override watch(_ref: ResourceRef, _opts: RawWatchOptions): Promise<ReadableStream<Uint8Array>> {
    return Promise.resolve((this.pushBodies.shift() ?? new PushBody()).stream);
  }
}

Deno.test("with a real informer: the initial list once, a watch event, a relist and a resync are each named", async () => {
  const clock = new FakeClock();
  const first = new PushBody();
  const lw = new PushScript([page([cm("a", "1")], "10"), page([cm("a", "30")], "30")], [first]);
  const factory = new SharedInformerFactory(lw, { clock, initialList: "paged", resyncPeriodMs: 60_000 });
  const lines: Line[] = [];
  const calls: ReconcileRequest[] = [];
  const c = new Controller(factory, {
    name: "cm",
    for: configMaps,
    clock,
    logger: memoryLogger(lines),
    reconcile: (r) => {
      calls.push(r);
      return Promise.resolve();
    },
  });
  const ac = new AbortController();
  factory.start(ac.signal);
  const done = c.run({ signal: ac.signal });
  await factory.waitForSync(ac.signal);
  for (let i = 0; i < 20 && calls.length < 1; i++) await clock.advance(0);
  await first.push(line("MODIFIED", cm("a", "11")));
  await clock.advance(0);
  await first.push(errorLine(410, "Expired")); // relist: a changed to 30
  for (let i = 0; i < 100 && calls.length < 3; i++) await clock.advance(100);
  await clock.advance(60_000); // a resync tick
  for (let i = 0; i < 20 && calls.length < 4; i++) await clock.advance(0);
  assert.deepEqual(reasons(lines), [
    "ns/a: initial list of v1/configmaps ns/a (resourceVersion 1)",
    "ns/a: update of v1/configmaps ns/a (resourceVersion 11)",
    "ns/a: relist of v1/configmaps ns/a (resourceVersion 30)",
    "ns/a: resync of v1/configmaps ns/a (resourceVersion 30)",
  ]);
  ac.abort();
  await done;
  await factory.stopped();
});

Deno.test("ReasonBook: a requeue still held by the queue is kept for later; one already added counts", () => {
  const book = new ReasonBook();
  const update = { type: "update", resource: "v1/pods", key: "ns/p", resourceVersion: "5" } as const;
  book.schedule("k", { type: "requeue after error" }, 100);
  book.note("k", update, 50);
  assert.equal(describeReason(book.take("k", 60, true)), "update of v1/pods ns/p (resourceVersion 5)");
  assert.equal(describeReason(book.take("k", 100, false)), "requeue after error");
  // Both due: the earlier names the run, both count.
  book.schedule("k", { type: "requeueAfter", afterMs: 10 }, 200);
  book.note("k", update, 250);
  assert.equal(describeReason(book.take("k", 300, false)), "requeueAfter 10 ms, first of 2 triggers");
  book.note("k", update, 400);
  book.schedule("k", { type: "requeue" }, 450);
  assert.equal(
    describeReason(book.take("k", 500, false)),
    "update of v1/pods ns/p (resourceVersion 5), first of 2 triggers",
  );
  assert.equal(describeReason(book.take("k", 600, false)), "enqueue", "nothing noted: an add from elsewhere");
});

Deno.test("ReasonBook keeps the earliest of two schedules, as the queue does", () => {
  const book = new ReasonBook();
  book.schedule("k", { type: "requeueAfter", afterMs: 100 }, 100);
  book.schedule("k", { type: "requeue after error" }, 500);
  assert.equal(describeReason(book.take("k", 600, false)), "requeueAfter 100 ms");
  book.schedule("k", { type: "requeue after error" }, 900);
  book.dueNow(["requeue after error"], 700);
  assert.equal(book.take("k", 700, false).atMs, 700);
});
