import assert from "node:assert/strict";
import type { KubeObject } from "../../lib/resources/object.ts";
import {
  and,
  formatLabelSelector,
  generationChanged,
  labelsChanged,
  labelsMatch,
  not,
  or,
  resourceVersionChanged,
  type TriggerEvent,
} from "../../lib/controller/mod.ts";

function o(meta: KubeObject["metadata"]): KubeObject {
  return { metadata: { name: "x", ...meta } };
}
function update(a: KubeObject["metadata"], b: KubeObject["metadata"]): TriggerEvent {
  return { type: "update", oldObject: o(a), object: o(b) };
}

Deno.test("generationChanged passes spec changes, drops status-only updates, and passes objects without one", () => {
  assert.equal(generationChanged(update({ generation: 1 }, { generation: 2 })), true);
  assert.equal(generationChanged(update({ generation: 2 }, { generation: 2 })), false);
  assert.equal(generationChanged(update({}, {})), true);
  assert.equal(generationChanged({ type: "add", object: o({ generation: 1 }) }), true);
  assert.equal(generationChanged({ type: "delete", object: o({ generation: 1 }) }), true);
});

Deno.test("resourceVersionChanged drops resync updates", () => {
  assert.equal(resourceVersionChanged(update({ resourceVersion: "5" }, { resourceVersion: "5" })), false);
  assert.equal(resourceVersionChanged(update({ resourceVersion: "5" }, { resourceVersion: "6" })), true);
});

Deno.test("labelsChanged compares label maps", () => {
  assert.equal(labelsChanged(update({ labels: { a: "1" } }, { labels: { a: "1" } })), false);
  assert.equal(labelsChanged(update({ labels: { a: "1" } }, { labels: { a: "2" } })), true);
  assert.equal(labelsChanged(update({ labels: { a: "1" } }, { labels: { b: "1" } })), true);
  assert.equal(labelsChanged(update({}, { labels: { a: "1" } })), true);
});

Deno.test("labelsMatch matches matchLabels and matchExpressions", () => {
  const p = labelsMatch({
    matchLabels: { app: "nginx" },
    matchExpressions: [
      { key: "tier", operator: "In", values: ["web", "api"] },
      { key: "legacy", operator: "DoesNotExist" },
      { key: "env", operator: "NotIn", values: ["test"] },
    ],
  });
  const add = (labels: Record<string, string>): TriggerEvent => ({ type: "add", object: o({ labels }) });
  assert.equal(p(add({ app: "nginx", tier: "web" })), true);
  assert.equal(p(add({ app: "nginx", tier: "db" })), false);
  assert.equal(p(add({ app: "nginx", tier: "web", legacy: "1" })), false);
  assert.equal(p(add({ app: "nginx", tier: "web", env: "test" })), false);
  assert.equal(p(add({ tier: "web" })), false);
  assert.equal(labelsMatch({})(add({})), true);
  assert.throws(() => labelsMatch({ matchExpressions: [{ key: "a", operator: "In" }] }), TypeError);
  assert.throws(
    () => labelsMatch({ matchExpressions: [{ key: "a", operator: "Near" }] }),
    /unknown operator "Near"/,
  );
});

Deno.test("labelsMatch passes an update when the old or the new object matches, so removing the label triggers", () => {
  const p = labelsMatch({ matchLabels: { mirror: "true" } });
  assert.equal(p(update({ labels: { mirror: "true" } }, { labels: {} })), true, "label removed: clean up");
  assert.equal(p(update({ labels: {} }, { labels: { mirror: "true" } })), true, "label added");
  assert.equal(p(update({ labels: { mirror: "true" } }, { labels: { mirror: "true" } })), true);
  assert.equal(p(update({ labels: {} }, { labels: { other: "x" } })), false);
  assert.equal(p({ type: "delete", object: o({ labels: { mirror: "true" } }) }), true);
  assert.equal(p({ type: "delete", object: o({}) }), false);
});

Deno.test("formatLabelSelector writes the server's selector syntax, so scope and predicate can share one selector", () => {
  assert.equal(
    formatLabelSelector({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["a", "b"] },
        { key: "env", operator: "NotIn", values: ["test"] },
        { key: "owner", operator: "Exists" },
        { key: "legacy", operator: "DoesNotExist" },
      ],
    }),
    "app=web,tier in (a,b),env notin (test),owner,!legacy",
  );
  assert.equal(formatLabelSelector({}), "");
  assert.throws(
    () => formatLabelSelector({ matchExpressions: [{ key: "a", operator: "NotIn" }] }),
    TypeError,
  );
});

Deno.test("and, or and not combine predicates", () => {
  const yes = () => true;
  const no = () => false;
  const e: TriggerEvent = { type: "add", object: o({}) };
  assert.equal(and(yes, no)(e), false);
  assert.equal(and(yes, yes)(e), true);
  assert.equal(or(no, yes)(e), true);
  assert.equal(or(no, no)(e), false);
  assert.equal(not(no)(e), true);
  assert.equal(and()(e), true);
  assert.equal(or()(e), false);
});
