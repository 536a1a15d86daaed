import assert from "node:assert/strict";
import { findCondition, isConditionTrue, setCondition } from "../../lib/controller/mod.ts";
import type { Condition } from "../../lib/resources/mod.ts";

const t0 = new Date(Date.UTC(2026, 0, 1));
const t1 = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));

Deno.test("setCondition adds a condition with the transition time now, in metav1.Time format", () => {
  const list = setCondition<Condition>(undefined, {
    type: "Ready",
    status: "False",
    reason: "Waiting",
    message: "",
  }, t1);
  assert.deepEqual(list, [{
    type: "Ready",
    status: "False",
    reason: "Waiting",
    message: "",
    lastTransitionTime: "2026-01-02T03:04:05Z",
  }]);
});

Deno.test("the transition time changes only when the status does; other conditions keep their place", () => {
  const start: Condition[] = [
    { type: "Other", status: "True", reason: "X", message: "", lastTransitionTime: "2025-01-01T00:00:00Z" },
    {
      type: "Ready",
      status: "False",
      reason: "Waiting",
      message: "",
      lastTransitionTime: "2026-01-01T00:00:00Z",
    },
  ];
  const same = setCondition(
    start,
    { type: "Ready", status: "False", reason: "StillWaiting", message: "m" },
    t1,
  );
  assert.equal(findCondition(same, "Ready")?.lastTransitionTime, "2026-01-01T00:00:00Z");
  assert.equal(findCondition(same, "Ready")?.reason, "StillWaiting");
  assert.deepEqual(same.map((c) => c.type), ["Other", "Ready"]);
  const flipped = setCondition(same, { type: "Ready", status: "True", reason: "Done", message: "" }, t1);
  assert.equal(findCondition(flipped, "Ready")?.lastTransitionTime, "2026-01-02T03:04:05Z");
  assert.equal(isConditionTrue(flipped, "Ready"), true);
  assert.equal(isConditionTrue(flipped, "Missing"), false);
  assert.equal(start[1]?.reason, "Waiting", "the input list is not modified");
  assert.equal(t0.getTime() < t1.getTime(), true);
});
