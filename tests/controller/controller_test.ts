import assert from "node:assert/strict";
import { type Action, Controller, type ReconcileRequest } from "../../lib/controller/mod.ts";
import type { KubeObject } from "../../lib/resources/object.ts";
import { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { exponentialFailureRateLimiter } from "../../lib/queue/mod.ts";
import { flush } from "../_util/fake_clock.ts";
import { keys, setup } from "./controller_setup.ts";
import { configMapRef, deploymentRef, FakeInformers, fooRef, obj } from "./fake_informers.ts";

Deno.test("owned objects enqueue only their controlling owner of the primary group and kind", async () => {
  const calls: ReconcileRequest[] = [];
  const t = setup({
    owns: [deploymentRef],
    reconcile: (r) => {
      calls.push(r);
      return Promise.resolve();
    },
  });
  const { done } = await t.start();
  const deployments = t.informers.get(deploymentRef);
  const owner = (apiVersion: string, kind: string, name: string, controller?: boolean) => ({
    apiVersion,
    kind,
    name,
    uid: `uid-${name}`,
    ...(controller === undefined ? {} : { controller }),
  });
  deployments.add(
    obj("d1", { ownerReferences: [owner("samplecontroller.k8s.io/v1alpha1", "Foo", "a", true)] }),
  );
  deployments.add(obj("d2", { ownerReferences: [owner("samplecontroller.k8s.io/v1alpha1", "Foo", "b")] }));
  deployments.add(obj("d3", { ownerReferences: [owner("other.io/v1", "Foo", "c", true)] }));
  deployments.add(obj("d4", { ownerReferences: [owner("apps/v1", "ReplicaSet", "d", true)] }));
  deployments.add(obj("d5", {
    ownerReferences: [
      owner("apps/v1", "ReplicaSet", "e"),
      owner("samplecontroller.k8s.io/v2", "Foo", "f", true),
    ],
  }));
  deployments.add(obj("d6"));
  await flush();
  assert.deepEqual(keys(calls), ["ns/a", "ns/f"]);
  t.ctl.abort();
  await done;
});

Deno.test("watches map objects to requests, and per-source predicates filter changes", async () => {
  const calls: ReconcileRequest[] = [];
  const t = setup({
    predicates: [
      (e) => e.type !== "update" || e.oldObject.metadata.generation !== e.object.metadata.generation,
    ],
    watches: [{ ref: configMapRef, map: (o) => [{ namespace: "ns", name: `for-${o.metadata.name}` }] }],
    reconcile: (r) => {
      calls.push(r);
      return Promise.resolve();
    },
  });
  t.foos.add(obj("existing", { generation: 1 }));
  const { done } = await t.start();
  assert.deepEqual(keys(calls), ["ns/existing"], "every primary object is reconciled once at start");
  t.foos.update(obj("existing", { generation: 1, resourceVersion: "2" }));
  await flush();
  assert.equal(calls.length, 1, "a status-only update is filtered");
  t.foos.update(obj("existing", { generation: 2, resourceVersion: "3" }));
  t.informers.get(configMapRef).add(obj("cm"));
  await flush();
  assert.deepEqual(keys(calls), ["ns/existing", "ns/existing", "ns/for-cm"]);
  t.ctl.abort();
  await done;
});

Deno.test("a thrown error requeues the key with growing delays and logs the key; success forgets it", async () => {
  const times: number[] = [];
  let failures = 3;
  const t = setup({
    reconcile: (_r, ctx) => {
      times.push(t.clock.now());
      if (failures-- > 0) return Promise.reject(new Error(`boom ${ctx.retries}`));
      return Promise.resolve();
    },
  });
  const { done } = await t.start();
  const t0 = t.clock.now();
  t.foos.add(obj("a"));
  await flush();
  await t.clock.advance(100);
  assert.deepEqual(times.map((x) => x - t0), [0, 5, 15, 35]);
  const errors = t.lines.filter((l) => l.level === "error");
  assert.equal(errors.length, 3);
  assert.equal(errors[0]?.fields.key, "ns/a");
  assert.equal(errors[0]?.fields.controller, "foo");
  assert.match(String(errors[2]?.fields.error), /boom 2/);
  assert.equal(t.c.queue.numRequeues("ns/a"), 0, "success forgets the backoff");
  t.ctl.abort();
  await done;
});

Deno.test("a worker survives an exception and keeps processing other keys", async () => {
  const seen: string[] = [];
  const t = setup({
    reconcile: (r) => {
      seen.push(r.name);
      if (r.name === "bad") throw new TypeError("synchronous bug");
      return Promise.resolve();
    },
  });
  const { done } = await t.start();
  t.foos.add(obj("bad"));
  t.foos.add(obj("good"));
  await flush();
  assert.deepEqual(seen, ["bad", "good"]);
  t.ctl.abort();
  await done;
});

Deno.test("requeueAfterMs re-runs the key after that delay; requeue uses the rate limiter", async () => {
  const times: number[] = [];
  const t = setup({
    reconcile: (r): Promise<Action> => {
      times.push(t.clock.now());
      return Promise.resolve(r.name === "periodic" ? { requeueAfterMs: 30_000 } : {});
    },
  });
  const { done } = await t.start();
  const t0 = t.clock.now();
  t.foos.add(obj("periodic"));
  await flush();
  await t.clock.advance(29_999);
  assert.equal(times.length, 1);
  await t.clock.advance(1);
  assert.deepEqual(times.map((x) => x - t0), [0, 30_000]);
  t.ctl.abort();
  await done;
});

Deno.test("a reconcile timeout aborts ctx.signal", async () => {
  const seen: { reason?: unknown } = {};
  const t = setup({
    reconcileTimeoutMs: 1_000,
    reconcile: (_r, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          seen.reason = ctx.signal.reason;
          reject(ctx.signal.reason);
        });
      }),
  });
  const { done } = await t.start();
  t.foos.add(obj("slow"));
  await flush();
  await t.clock.advance(999);
  assert.equal(seen.reason, undefined);
  await t.clock.advance(1);
  const reason = seen.reason as DOMException | undefined;
  assert.equal(reason?.name, "TimeoutError");
  t.ctl.abort();
  await done;
});

Deno.test("at most N reconciles run at once and never two of one key", async () => {
  let active = 0;
  let maxActive = 0;
  const activeKeys = new Set<string>();
  let overlap = false;
  const t = setup({
    workers: 3,
    reconcile: async (r) => {
      if (activeKeys.has(r.name)) overlap = true;
      activeKeys.add(r.name);
      maxActive = Math.max(maxActive, ++active);
      await new Promise<void>((resolve) => t.clock.setTimer(resolve, 10));
      active--;
      activeKeys.delete(r.name);
    },
  });
  const { done } = await t.start();
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 6; i++) t.foos.add(obj(`o${i}`, { resourceVersion: String(round) }));
    await t.clock.advance(3);
  }
  await t.clock.advance(200);
  assert.equal(maxActive, 3);
  assert.ok(!overlap, "one key was reconciled by two workers at once");
  t.ctl.abort();
  await done;
});

Deno.test("reconcile metrics are recorded in the registry", async () => {
  const registry = new MetricsRegistry();
  const t = setup({
    registry,
    reconcile: (r) => r.name === "bad" ? Promise.reject(new Error("x")) : Promise.resolve(),
  });
  const { done } = await t.start();
  t.foos.add(obj("good"));
  t.foos.add(obj("bad"));
  await flush();
  const text = registry.render();
  assert.match(text, /controller_runtime_reconcile_total\{controller="foo",result="success"\} 1/);
  assert.match(text, /controller_runtime_reconcile_total\{controller="foo",result="error"\} 1/);
  assert.match(text, /controller_runtime_reconcile_errors_total\{controller="foo"\} 1/);
  assert.match(text, /controller_runtime_max_concurrent_reconciles\{controller="foo"\} 1/);
  assert.match(text, /controller_runtime_reconcile_time_seconds_count\{controller="foo"\} 2/);
  assert.match(text, /workqueue_retries_total\{name="foo"\} 1/);
  t.ctl.abort();
  await done;
});

Deno.test("invalid worker counts are rejected", () => {
  assert.throws(
    () =>
      new Controller(new FakeInformers(), {
        name: "x",
        for: fooRef,
        workers: 0,
        reconcile: () => Promise.resolve(),
      }),
    RangeError,
  );
});

export type { KubeObject };

Deno.test("keys waiting for a retry are retried at once when an informer reaches the API server again", async () => {
  let failing = true;
  const calls: ReconcileRequest[] = [];
  const s = setup({
    reconcile: (request) => {
      calls.push(request);
      return failing ? Promise.reject(new TypeError("connection refused")) : Promise.resolve();
    },
    rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 1000 }),
  });
  const { done } = await s.start();
  s.foos.add(obj("a"));
  for (let i = 0; i < 4; i++) await s.clock.advance(1000 * 2 ** i); // four failures: next retry in 16 s
  const before = calls.length;
  failing = false;
  s.foos.recover();
  await s.clock.advance(0);
  assert.equal(calls.length, before + 1, "retried without waiting for its backoff");
  assert.ok(s.lines.some((l) => l.msg.includes("retrying failed reconciles now")));
  await s.clock.advance(60_000);
  assert.equal(calls.length, before + 1, "and not again once it succeeded");
  s.ctl.abort();
  await done;
});
