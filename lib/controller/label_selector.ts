import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { LabelSelector } from "../resources/apimachinery.ts";

export type { LabelSelector };

const OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"];

/** Throws a TypeError naming the requirement when `selector` is not a valid `metav1.LabelSelector`. */
export function validateLabelSelector(selector: DeepReadonly<LabelSelector>): void {
  for (const e of selector.matchExpressions ?? []) {
    if (!OPERATORS.includes(e.operator)) {
      throw new TypeError(`Invalid label selector: unknown operator "${e.operator}" on "${e.key}"`);
    }
    if ((e.operator === "In" || e.operator === "NotIn") && !e.values?.length) {
      throw new TypeError(`Invalid label selector: operator ${e.operator} on "${e.key}" needs values`);
    }
    if ((e.operator === "Exists" || e.operator === "DoesNotExist") && e.values?.length) {
      throw new TypeError(`Invalid label selector: operator ${e.operator} on "${e.key}" takes no values`);
    }
  }
}

/** True when `labels` satisfy `selector` (an empty selector matches everything). */
export function matchesLabels(
  selector: DeepReadonly<LabelSelector>,
  labels: Readonly<Record<string, string>>,
): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key] ?? "";
    switch (e.operator) {
      case "In":
        if (!has || !e.values?.includes(value)) return false;
        break;
      case "NotIn":
        if (has && e.values?.includes(value)) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
      default:
        return false; // validateLabelSelector rejects unknown operators up front
    }
  }
  return true;
}

/**
 * `selector` in the API server's query syntax, for an informer's `labelSelector` scope:
 * `{ matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In", values: ["a", "b"] }] }`
 * becomes `app=web,tier in (a,b)`. Use the same selector object for the scope and the
 * {@linkcode labelsMatch} predicate, so cache and filter agree.
 */
export function formatLabelSelector(selector: DeepReadonly<LabelSelector>): string {
  validateLabelSelector(selector);
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    switch (e.operator) {
      case "In":
        parts.push(`${e.key} in (${e.values!.join(",")})`);
        break;
      case "NotIn":
        parts.push(`${e.key} notin (${e.values!.join(",")})`);
        break;
      case "Exists":
        parts.push(e.key);
        break;
      case "DoesNotExist":
        parts.push(`!${e.key}`);
        break;
    }
  }
  return parts.join(",");
}
