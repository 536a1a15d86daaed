import type { DeepReadonly } from "../resources/deep_readonly.ts";
import type { KubeObject } from "../resources/object.ts";
import { type LabelSelector, matchesLabels, validateLabelSelector } from "./label_selector.ts";
import type { Predicate, TriggerEvent } from "./types.ts";

/**
 * Passes updates only when `metadata.generation` changed, i.e. the spec changed (status-only updates
 * and resyncs are dropped). Objects without a generation always pass; adds and deletes always pass.
 *
 * @example Skip status-only updates
 * ```ts
 * import assert from "node:assert/strict";
 * import { generationChanged } from "@kubeloop/kubeloop";
 *
 * const before = { metadata: { name: "web", generation: 1 } };
 * const statusOnly = { ...before, status: { readyReplicas: 1 } };
 * const specChanged = { metadata: { name: "web", generation: 2 } };
 * assert.equal(generationChanged({ type: "update", oldObject: before, object: statusOnly }), false);
 * assert.equal(generationChanged({ type: "update", oldObject: before, object: specChanged }), true);
 * // In a controller: `predicates: [generationChanged]` next to `for: DEPLOYMENTS`.
 * ```
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

/**
 * Passes events about objects whose labels match `selector`. An update passes when the old or the new
 * object matches, so an update that removes (or adds) the matching labels still triggers a reconcile, which
 * can then clean up (or set up). Named apart from the informer scope option `labelSelector`, which limits
 * what is cached: a scoped informer sees an object that stops matching as deleted.
 * Throws a TypeError for an invalid selector.
 */
export function labelsMatch(selector: LabelSelector): Predicate {
  validateLabelSelector(selector);
  const matches = (obj: DeepReadonly<KubeObject>) => matchesLabels(selector, obj.metadata.labels ?? {});
  return (event) => matches(event.object) || (event.type === "update" && matches(event.oldObject));
}

/**
 * Passes when every predicate passes (true for none).
 *
 * @example Spec changes of the objects labelled tier=web
 * ```ts
 * import assert from "node:assert/strict";
 * import { and, generationChanged, labelsMatch } from "@kubeloop/kubeloop";
 *
 * const webSpecChanges = and(labelsMatch({ matchLabels: { tier: "web" } }), generationChanged);
 * const before = { metadata: { name: "a", generation: 1, labels: { tier: "web" } } };
 * const after = { metadata: { ...before.metadata, generation: 2 } };
 * assert.equal(webSpecChanges({ type: "update", oldObject: before, object: after }), true);
 * assert.equal(webSpecChanges({ type: "update", oldObject: before, object: before }), false);
 * ```
 */
export function and<T extends KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return (event) => predicates.every((p) => p(event));
}

/**
 * Passes when any predicate passes (false for none).
 *
 * @example Spec or label changes
 * ```ts
 * import assert from "node:assert/strict";
 * import { generationChanged, labelsChanged, or } from "@kubeloop/kubeloop";
 *
 * const specOrLabels = or(generationChanged, labelsChanged);
 * const before = { metadata: { name: "a", generation: 1, labels: { tier: "web" } } };
 * const relabelled = { metadata: { ...before.metadata, labels: { tier: "api" } } };
 * assert.equal(specOrLabels({ type: "update", oldObject: before, object: relabelled }), true);
 * assert.equal(specOrLabels({ type: "update", oldObject: before, object: before }), false);
 * ```
 */
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
