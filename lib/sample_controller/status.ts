import type { DeepReadonly } from "../resources/deep_readonly.ts";
import { findCondition, setCondition } from "../controller/conditions.ts";
import type { Foo, FooStatus, FooStatusCondition } from "./types.ts";

/** Reasons of the `Ready` condition. */
export type ReadyReason = "Available" | "Progressing" | "InvalidSpec" | "ErrResourceExists";

/** What one sync found, from which the Foo's status is computed. */
export interface StatusInput {
  /** Status of the Ready condition. */
  ready: boolean;
  /** Reason of the Ready condition. */
  reason: ReadyReason;
  /** Message of the Ready condition. */
  message: string;
  /** The Deployment's `status.availableReplicas`; undefined keeps the Foo's current value. */
  availableReplicas?: number;
}

/**
 * The status fields this controller owns on `foo`, as its server-side apply body: `availableReplicas`,
 * `observedGeneration` and only the `Ready` entry of `conditions`. Conditions of other types are left out on
 * purpose: `conditions` is a list-map keyed by `type`, so server-side apply leaves entries we do not send to
 * their managers, whereas sending them with `force` would take them over. `lastTransitionTime` changes only
 * when the condition's status flips, so recomputing an unchanged state yields an equal status.
 */
export function computeStatus(foo: DeepReadonly<Foo>, input: StatusInput, now: Date): FooStatus {
  const generation = foo.metadata.generation;
  // Only our condition goes into the body; setCondition keeps its transition time unless the status flips.
  const previous = findCondition(foo.status?.conditions, "Ready");
  const [ready] = setCondition<FooStatusCondition>(previous ? [previous] : [], {
    type: "Ready",
    status: input.ready ? "True" : "False",
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    reason: input.reason,
    message: input.message,
  }, now);
  const available = input.availableReplicas ?? foo.status?.availableReplicas ?? 0;
  return {
    availableReplicas: available,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    conditions: ready ? [ready] : [],
  };
}

/**
 * True when the fields we own in `next` equal those in `current`: conditions are matched by type, so others'
 * conditions in `current` (and their order) do not count as a difference.
 */
export function statusEqual(current: DeepReadonly<FooStatus> | undefined, next: FooStatus): boolean {
  if ((current?.availableReplicas ?? 0) !== (next.availableReplicas ?? 0)) return false;
  if (current?.observedGeneration !== next.observedGeneration) return false;
  const byType = new Map((current?.conditions ?? []).map((c) => [c.type, c]));
  for (const want of next.conditions ?? []) {
    const have = byType.get(want.type);
    if (!have) return false;
    for (
      const field of ["status", "observedGeneration", "lastTransitionTime", "reason", "message"] as const
    ) {
      if (have[field] !== want[field]) return false;
    }
  }
  return true;
}
