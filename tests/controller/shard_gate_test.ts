import assert from "node:assert/strict";
import type { ControllerShard } from "../../lib/controller/mod.ts";
import type { InformerPartition } from "../../lib/cache/mod.ts";
import type { DeepReadonly } from "../../lib/resources/deep_readonly.ts";
import type { KubeObject } from "../../lib/resources/object.ts";
import type { ShardTicket } from "../../lib/shard/mod.ts";
import { flush } from "../_util/fake_clock.ts";
import { keys, setup } from "./controller_setup.ts";
import { deploymentRef, obj } from "./fake_informers.ts";

/** A shard that admits the objects whose name is in `active`, and records what happens to its tickets. */
class FakeShard {
  active = new Set<string>();
  events: string[] = [];
  partitions: string[] = [];
  aborters = new Map<string, AbortController>();
  #listeners = new Set<(range: number) => void>();

  partition(ref: { plural: string }, source: "self" | "controller"): InformerPartition {
    this.partitions.push(`${ref.plural}:${source}`);
    return {
      id: `${ref.plural}:${source}`,
      version: 0,
      shardSelector: undefined,
      includes: () => true,
      subscribe: () => () => {},
      synced: () => {},
    };
  }

  begin(object: DeepReadonly<KubeObject>): ShardTicket | undefined {
    const name = object.metadata.name!;
    if (!this.active.has(name)) {
      this.events.push(`skip ${name}`);
      return undefined;
    }
    const aborter = new AbortController();
    this.aborters.set(name, aborter);
    return {
      range: 0,
      signal: aborter.signal,
      run: async (fn) => {
        this.events.push(`run ${name}`);
        return await fn();
      },
      end: () => void this.events.push(`end ${name}`),
    };
  }

  /** "b" is in range 1, everything else in range 0. */
  rangeOf(object: DeepReadonly<KubeObject>): number {
    return object.metadata.name === "b" ? 1 : 0;
  }

  onActivated(listener: (range: number) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  activate(...names: string[]): void {
    for (const n of names) {
      this.active.add(n);
      for (const l of this.#listeners) l(n === "b" ? 1 : 0);
    }
  }
}

const shardOf = (s: FakeShard) => s as unknown as ControllerShard;

Deno.test("a sharded controller reconciles only keys whose range is active here, inside their ticket", async () => {
  const shard = new FakeShard();
  shard.active.add("a");
  const calls: { name: string }[] = [];
  const s = setup({
    shard: shardOf(shard),
    owns: [deploymentRef],
    reconcile: (request) => {
      calls.push(request);
      return Promise.resolve();
    },
  });
  assert.deepEqual(shard.partitions, ["foos:self", "deployments:controller"]);
  s.foos.add(obj("a"));
  s.foos.add(obj("b"));
  await s.start();
  await flush();
  assert.deepEqual(keys(calls), ["ns/a"]);
  assert.deepEqual(shard.events, ["run a", "end a", "skip b"]);
  // b's range becomes active here: its keys (and only its) are queued and reconciled.
  shard.activate("b");
  await flush();
  assert.deepEqual(keys(calls), ["ns/a", "ns/b"]);
  s.ctl.abort();
});

Deno.test("losing the claim aborts the reconcile's signal with the coordinator's reason", async () => {
  const shard = new FakeShard();
  shard.active.add("a");
  let seen: unknown;
  const s = setup({
    shard: shardOf(shard),
    reconcile: (_request, ctx) =>
      new Promise<void>((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          seen = ctx.signal.reason;
          resolve();
        });
      }),
  });
  s.foos.add(obj("a"));
  await s.start();
  await flush();
  shard.aborters.get("a")!.abort(new Error("range 0: lost"));
  await flush();
  assert.equal((seen as Error).message, "range 0: lost");
  assert.deepEqual(shard.events, ["run a", "end a"]);
  s.ctl.abort();
});

Deno.test("a deleted object is reconciled where its range is, from its last known state", async () => {
  const shard = new FakeShard();
  shard.active.add("gone");
  const calls: string[] = [];
  const s = setup({
    shard: shardOf(shard),
    reconcile: (r) => {
      calls.push(r.name);
      return Promise.resolve();
    },
  });
  await s.start();
  const gone = obj("gone");
  s.foos.add(gone);
  await flush();
  s.foos.remove(gone);
  await flush();
  assert.deepEqual(calls, ["gone", "gone"], "the delete was reconciled too, not dropped as 'not ours'");
  assert.deepEqual(shard.events, ["run gone", "end gone", "run gone", "end gone"]);
  s.ctl.abort();
});
