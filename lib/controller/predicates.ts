import type { KubeObject } from "../client/types.ts";
import type { LabelSelector } from "../resources/apimachinery.ts";
import type { Predicate, TriggerEvent } from "./types.ts";

export type { LabelSelector };

/**
 * Passes updates only when `metadata.generation` changed, i.e. the spec changed (status-only updates
 * and resyncs are dropped). Objects without a generation always pass; adds and deletes always pass.
 */
export function generationChanged(event: TriggerEvent): boolean {
  if (event.type !== "update") return true;
  const before = event.oldObject.metadata.generation;
  const after = event.object.metadata.generation;
  return before === undefined || after === undefined || before !== after;
}

/** Passes updates only when `metadata.resourceVersion` changed, which filters periodic resyncs. */
export function resourceVersionChanged(event: TriggerEvent): boolean {
  if (event.type !== "update") return true;
  return event.oldObject.metadata.resourceVersion !== event.object.metadata.resourceVersion;
}

/** Passes updates only when the labels changed. */
export function labelsChanged(event: TriggerEvent): boolean {
  if (event.type !== "update") return true;
  return !sameRecord(event.oldObject.metadata.labels, event.object.metadata.labels);
}

/** Passes updates only when the annotations changed. */
export function annotationsChanged(event: TriggerEvent): boolean {
  if (event.type !== "update") return true;
  return !sameRecord(event.oldObject.metadata.annotations, event.object.metadata.annotations);
}

/** Passes events whose (new) object matches `selector`; an empty selector matches everything. */
export function labelSelector(selector: LabelSelector): Predicate {
  for (const e of selector.matchExpressions ?? []) {
    if (!["In", "NotIn", "Exists", "DoesNotExist"].includes(e.operator)) {
      throw new TypeError(`Invalid label selector: unknown operator "${e.operator}" on "${e.key}"`);
    }
    if ((e.operator === "In" || e.operator === "NotIn") && !e.values?.length) {
      throw new TypeError(`Invalid label selector: operator ${e.operator} on "${e.key}" needs values`);
    }
  }
  return (event) => matchesLabels(selector, event.object.metadata.labels ?? {});
}

/** True when `labels` satisfy `selector`. */
export function matchesLabels(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    switch (e.operator) {
      case "In":
        if (!has || !e.values?.includes(labels[e.key] as string)) return false;
        break;
      case "NotIn":
        if (has && e.values?.includes(labels[e.key] as string)) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
      default:
        return false; // unknown operators are rejected when the predicate is built
    }
  }
  return true;
}

/** Passes when every predicate passes (true for none). */
export function and<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return (event) => predicates.every((p) => p(event));
}

/** Passes when any predicate passes (false for none). */
export function or<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return (event) => predicates.some((p) => p(event));
}

/** Inverts a predicate. */
export function not<T extends KubeObject>(predicate: Predicate<T>): Predicate<T> {
  return (event) => !predicate(event);
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  return ak.every((k) => a?.[k] === b?.[k] && Object.hasOwn(b ?? {}, k));
}
