/**
 * Informer handlers learn where each change came from (its source) (the first list, a relist, a watch event, a resync
 * tick, or the replay to a late subscriber), and while tracing is on they run inside the span of that
 * watch event, list or resync: one span per event or list, never one per object of a list.
 */
import assert from "node:assert/strict";
import { Informer } from "../../lib/cache/informer.ts";
import type { ChangeSource } from "../../lib/cache/change_source.ts";
import type { RawWatchOptions } from "../../lib/client/types.ts";
import type { ResourceRef } from "../../lib/resources/object.ts";
import { activeSpanContext } from "../../lib/trace/mod.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { installRecordingTracer } from "../_util/recording_tracer.ts";
import { cm, configMaps, errorLine, line, page, PushBody, ScriptedListWatcher } from "../watch/_helpers.ts";

const spans = await installRecordingTracer();

class PushScript extends ScriptedListWatcher {
  constructor(lists: ReturnType<typeof page>[], readonly pushBodies: PushBody[]) {
    super(lists, []);
  }
  override watch(_ref: ResourceRef, _opts: RawWatchOptions): Promise<ReadableStream<Uint8Array>> {
    return Promise.resolve((this.pushBodies.shift() ?? new PushBody()).stream);
  }
}

Deno.test("handlers get each change's source and run inside the span of its event, list or resync", async () => {
  spans.length = 0;
  const clock = new FakeClock();
  const body = new PushBody();
  const lw = new PushScript([page([cm("a", "1"), cm("b", "2")], "10"), page([cm("a", "30")], "30")], [body]);
  const inf = new Informer(lw, configMaps, { clock, initialList: "paged", resyncPeriodMs: 60_000 });
  const seen: string[] = [];
  const note = (what: string, name: string | undefined, origin: ChangeSource | undefined): void =>
    void seen.push(
      `${what} ${name} ${origin} in ${spans.find((s) => s.spanId === activeSpanContext()?.spanId)?.name}`,
    );
  inf.subscribe({
    onAdd: (o, info) => note("add", o.metadata.name, info?.source),
    onUpdate: (_, o, info) => note("update", o.metadata.name, info?.source),
    onDelete: (o, info) => note("delete", o.metadata.name, info.source),
  });
  const ac = new AbortController();
  const done = inf.run({ signal: ac.signal });
  await inf.ready();
  await body.push(line("MODIFIED", cm("a", "11")));
  await body.push(errorLine(410, "Expired")); // relist: b is gone, a changed again
  for (let i = 0; i < 100 && inf.store.get("ns/b") !== undefined; i++) await clock.advance(100);
  await clock.advance(60_000);
  const late: string[] = [];
  inf.subscribe({ onAdd: (o, info) => void late.push(`${o.metadata.name} ${info?.source}`) });
  assert.deepEqual(seen, [
    "add a list in informer.list v1/configmaps",
    "add b list in informer.list v1/configmaps",
    "update a watch in informer.event v1/configmaps",
    "update a relist in informer.relist v1/configmaps",
    "delete b relist in informer.relist v1/configmaps",
    "update a resync in informer.resync v1/configmaps",
  ]);
  assert.deepEqual(late, ["a list"], "a late subscriber's replay is its initial list");
  const event = spans.find((s) => s.name === "informer.event v1/configmaps")!;
  assert.deepEqual(event.attributes, {
    "kubeloop.resource": "v1/configmaps",
    "kubeloop.event.type": "update",
    "kubeloop.object.key": "ns/a",
    "kubeloop.object.resource_version": "11",
  });
  assert.equal(event.parentSpanId, undefined, "a root span");
  assert.equal(spans.filter((s) => s.name === "informer.list v1/configmaps").length, 1, "one span per list");
  assert.equal(
    spans.find((s) => s.name === "informer.relist v1/configmaps")?.attributes["kubeloop.changes"],
    2,
  );
  ac.abort();
  await done;
});
