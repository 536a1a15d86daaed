import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject } from "../resources/object.ts";
import type { EventInfo, EventSink, ObjectReference } from "../events/mod.ts";

/** One recorded event: what was passed to `record`, with the object reduced to its identity. */
export interface RecordedEvent extends EventInfo {
  /** Kind of the object the event is about, when known. */
  readonly kind?: string;
  /** Its namespace. */
  readonly namespace?: string;
  /** Its name. */
  readonly name?: string;
}

/** An {@linkcode EventSink} that keeps the events in memory, for assertions; nothing is written anywhere. */
export class FakeEventRecorder implements EventSink {
  /** Every event recorded, in order. */
  readonly events: RecordedEvent[] = [];

  /** Keeps the event. */
  record(regarding: DeepReadonly<KubeObject> | ObjectReference, info: EventInfo): void {
    const identity =
      "metadata" in regarding && typeof regarding.metadata === "object" && regarding.metadata !== null
        ? { kind: regarding.kind, namespace: regarding.metadata.namespace, name: regarding.metadata.name }
        : {
          kind: regarding.kind,
          namespace: (regarding as ObjectReference).namespace,
          name: (regarding as ObjectReference).name,
        };
    const defined = Object.fromEntries(Object.entries(identity).filter(([, v]) => typeof v === "string"));
    this.events.push({ ...info, ...defined });
  }

  /** The reasons recorded, in order (e.g. `["Mirrored", "Mirrored"]`). */
  reasons(): string[] {
    return this.events.map((e) => e.reason);
  }
}
