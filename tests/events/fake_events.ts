import { ApiError } from "../../lib/client/api_error.ts";
import type { ResourceRef } from "../../lib/resources/object.ts";
import {
  type Event,
  EventRecorder,
  type EventRecorderOptions,
  type EventRequestOptions,
  type EventsClient,
} from "../../lib/events/mod.ts";
import type { Logger } from "../../lib/log/logger.ts";
import { type LogLine as TestLogLine, MemoryLogger } from "../../lib/testing/mod.ts";
import { FakeClock } from "../_util/fake_clock.ts";

/** A successful write seen by {@linkcode FakeEvents}. */
export type Call =
  | { op: "create"; namespace: string | undefined; event: Event }
  | { op: "patch"; namespace: string | undefined; name: string; patch: unknown; type: string };

/** An events client that records writes and can fail or hang on demand. */
export class FakeEvents implements EventsClient {
  /** Writes that succeeded. */
  calls: Call[] = [];
  /** Every write attempted, successful or not. */
  attempts: ("create" | "patch")[] = [];
  /** The signal of every write attempted. */
  signals: (AbortSignal | undefined)[] = [];
  failCreate = false;
  failPatch: Error | undefined;
  /** Writes never answer; they settle only when their signal aborts (like an unreachable server). */
  hang = false;

  async create(_ref: ResourceRef, obj: Event, o?: EventRequestOptions): Promise<Event> {
    await this.#arrive("create", o?.signal);
    if (this.failCreate) throw new ApiError({ code: 403, reason: "Forbidden", message: "no" });
    this.calls.push({ op: "create", namespace: o?.namespace, event: structuredClone(obj) });
    return structuredClone(obj);
  }

  async patch(
    _ref: ResourceRef,
    name: string,
    patch: unknown,
    o: EventRequestOptions & { type: "merge" },
  ): Promise<Event> {
    await this.#arrive("patch", o.signal);
    if (this.failPatch) throw this.failPatch;
    this.calls.push({
      op: "patch",
      namespace: o.namespace,
      name,
      patch: structuredClone(patch),
      type: o.type,
    });
    return {} as Event;
  }

  async #arrive(op: "create" | "patch", signal: AbortSignal | undefined): Promise<void> {
    this.attempts.push(op);
    this.signals.push(signal);
    await Promise.resolve();
    if (!this.hang) return;
    await new Promise<never>((_resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }
}

/** One captured log line. */
export type LogLine = TestLogLine;

/** A logger that keeps its lines in `lines` (lib/testing's MemoryLogger). */
export function memoryLogger(lines: LogLine[]): Logger {
  return new MemoryLogger(lines);
}

/** A Foo the events are about. */
export const foo = {
  apiVersion: "samplecontroller.k8s.io/v1alpha1",
  kind: "Foo",
  metadata: { name: "example-foo", namespace: "default", uid: "u-1", resourceVersion: "7" },
};

/** What {@linkcode setup} returns. */
export interface RecorderSetup {
  clock: FakeClock;
  client: FakeEvents;
  logs: LogLine[];
  recorder: EventRecorder;
}

/** A recorder on a fake client, a fake clock (2026-01-01 by default) and a memory logger. */
export function setup(
  start: number = Date.UTC(2026, 0, 1),
  options: Partial<EventRecorderOptions> = {},
): RecorderSetup {
  const clock = new FakeClock(start);
  const client = new FakeEvents();
  const logs: LogLine[] = [];
  const recorder = new EventRecorder(client, {
    reportingController: "sample-controller",
    reportingInstance: "sample-controller-1",
    clock,
    logger: memoryLogger(logs),
    ...options,
  });
  return { clock, client, logs, recorder };
}
