import type { DeepReadonly } from "../resources/deep_readonly.ts";

/**
 * The fields of a status condition the helpers read and write: `metav1.Condition` (lib/resources'
 * `Condition`) and CRD condition types generated from a schema both fit.
 */
export interface ConditionFields {
  /** Condition type, e.g. "Ready"; unique in the list. */
  type: string;
  /** "True", "False" or "Unknown". */
  status: string;
  /** When `status` last changed (RFC 3339). */
  lastTransitionTime?: string;
  /** The generation the condition was computed for. */
  observedGeneration?: number;
  /** CamelCase machine-readable cause. */
  reason?: string;
  /** Human-readable detail. */
  message?: string;
}

/**
 * The condition of `type`, if any.
 *
 * @example Read one condition of a custom resource's status
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Condition, findCondition } from "@kubeloop/kubeloop";
 *
 * const at = "2026-01-01T00:00:00Z";
 * const conditions: Condition[] = [
 *   {
 *     type: "Ready",
 *     status: "False",
 *     reason: "Scaling",
 *     message: "2 of 3 replicas",
 *     lastTransitionTime: at,
 *   },
 * ];
 * assert.equal(findCondition(conditions, "Ready")?.message, "2 of 3 replicas");
 * assert.equal(findCondition(conditions, "Degraded"), undefined);
 * ```
 */
export function findCondition<C extends { readonly type: string }>(
  conditions: readonly C[] | undefined,
  type: string,
): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * True when the condition of `type` exists and its status is "True".
 *
 * @example Check a condition; a missing one is not true
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Condition, isConditionTrue } from "@kubeloop/kubeloop";
 *
 * const at = "2026-01-01T00:00:00Z";
 * const conditions: Condition[] = [
 *   { type: "Ready", status: "True", reason: "Synced", message: "", lastTransitionTime: at },
 *   { type: "Degraded", status: "False", reason: "Healthy", message: "", lastTransitionTime: at },
 * ];
 * assert.equal(isConditionTrue(conditions, "Ready"), true);
 * assert.equal(isConditionTrue(conditions, "Degraded"), false);
 * assert.equal(isConditionTrue(conditions, "Available"), false);
 * ```
 */
export function isConditionTrue(
  conditions: readonly DeepReadonly<ConditionFields>[] | undefined,
  type: string,
): boolean {
  return findCondition(conditions, type)?.status === "True";
}

/**
 * A new list with `condition` set (replacing the one of the same type, else appended), the others kept in
 * order. `lastTransitionTime` is `now` only when the status changed (or the condition is new): recomputing
 * an unchanged state yields an equal list, so a status write can be skipped. `now` is formatted as
 * `metav1.Time` (RFC 3339, second precision). The input list is not modified.
 *
 * @example Recomputing an unchanged condition changes nothing, so no status write is needed
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Condition, setCondition } from "@kubeloop/kubeloop";
 *
 * const ready = { type: "Ready", status: "True", reason: "Synced", message: "", observedGeneration: 1 };
 * const first = setCondition<Condition>([], ready, new Date("2026-01-01T00:00:00Z"));
 * // Recomputed later with the same status: an equal list, so the status needs no write.
 * const later = setCondition(first, ready, new Date("2026-01-01T00:05:00Z"));
 * assert.deepEqual(later, first);
 * // A new status moves lastTransitionTime.
 * const failed = { ...ready, status: "False", reason: "Failed" };
 * const failing = setCondition(later, failed, new Date("2026-01-01T00:06:00Z"));
 * assert.equal(failing[0]?.lastTransitionTime, "2026-01-01T00:06:00Z");
 * ```
 */
export function setCondition<C extends ConditionFields>(
  conditions: readonly DeepReadonly<C>[] | undefined,
  condition: Omit<C, "lastTransitionTime">,
  now: Date,
): C[] {
  const previous = findCondition(conditions, condition.type);
  const keep = previous?.status === condition.status && previous.lastTransitionTime;
  const next = {
    ...condition,
    lastTransitionTime: keep ? previous.lastTransitionTime : formatTime(now),
  } as C;
  const list = (conditions ?? []).map((c) => structuredClone(c) as C);
  const at = list.findIndex((c) => c.type === condition.type);
  if (at >= 0) list[at] = next;
  else list.push(next);
  return list;
}

/** `metav1.Time` format: RFC 3339 with second precision, UTC. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
