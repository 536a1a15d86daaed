import { Controller, type ControllerOptions, type ReconcileRequest } from "../../lib/controller/mod.ts";
import { exponentialFailureRateLimiter } from "../../lib/queue/mod.ts";
import { FakeClock, flush } from "../_util/fake_clock.ts";
import { type FakeInformer, FakeInformers, fooRef } from "./fake_informers.ts";
import { type Line, memoryLogger } from "./memory_logger.ts";

/** What {@linkcode setup} returns. */
export interface ControllerSetup {
  clock: FakeClock;
  informers: FakeInformers;
  /** The primary informer. */
  foos: FakeInformer;
  c: Controller;
  /** Aborting it shuts the controller down. */
  ctl: AbortController;
  lines: Line[];
  /** Syncs the informers and runs the controller; `done` is run's promise. */
  start(): Promise<{ done: Promise<void> }>;
}

/** A Foo controller on fake informers, a fake clock and a memory logger; `start` syncs and runs it. */
export function setup(
  options: Partial<ControllerOptions> & Pick<ControllerOptions, "reconcile">,
): ControllerSetup {
  const clock = new FakeClock();
  const informers = new FakeInformers();
  const lines: Line[] = [];
  const c = new Controller(informers, {
    name: "foo",
    for: fooRef,
    clock,
    logger: memoryLogger(lines),
    rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 5 }),
    ...options,
  });
  const ctl = new AbortController();
  const foos = informers.get(fooRef);
  const start = async () => {
    informers.syncAll();
    const done = c.run({ signal: ctl.signal });
    await flush();
    return { done };
  };
  return { clock, informers, foos, c, ctl, lines, start };
}

/** Requests as queue keys, for compact assertions. */
export function keys(calls: ReconcileRequest[]): string[] {
  return calls.map((r) => (r.namespace ? `${r.namespace}/${r.name}` : r.name));
}
