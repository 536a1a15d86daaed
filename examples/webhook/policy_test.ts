/**
 * Unit tests of the ConfigMap policy: the handlers answer reviews directly, no server, no cluster.
 *
 *   deno test examples/webhook/policy_test.ts
 */
import assert from "node:assert/strict";
import type { AdmissionRequest, ConfigMap } from "../../lib/mod.ts";
import { MemoryLogger } from "../../lib/testing/mod.ts";
import { markReviewed, requireTeam } from "./policy.ts";

function review(labels?: Record<string, string>): AdmissionRequest<ConfigMap> {
  return {
    uid: "1",
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    resource: { group: "", version: "v1", resource: "configmaps" },
    operation: "CREATE",
    userInfo: { username: "alice" },
    object: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "settings", ...(labels && { labels }) },
    },
  };
}
const logger = new MemoryLogger();

Deno.test("a ConfigMap without a team is refused; with one it passes, with a warning for team=legacy", async () => {
  const refused = await requireTeam.review(review(), { logger });
  assert.equal(refused.allowed, false);
  assert.equal(refused.status?.message, "a ConfigMap needs the label team=<owning team>");
  assert.deepEqual(await requireTeam.review(review({ team: "shop" }), { logger }), {
    uid: "1",
    allowed: true,
  });
  const legacy = await requireTeam.review(review({ team: "legacy" }), { logger });
  assert.deepEqual(legacy.warnings, ["team=legacy is going away; use your team's name"]);
});

Deno.test("every ConfigMap is labelled reviewed: the patch adds the label, or the labels", async () => {
  const patch = (response: { patch?: string }) => JSON.parse(atob(response.patch ?? ""));
  assert.deepEqual(patch(await markReviewed.review(review({ team: "shop" }), { logger })), [
    { op: "add", path: "/metadata/labels/example.com~1reviewed-by", value: "configmap-policy" },
  ]);
  assert.deepEqual(patch(await markReviewed.review(review(), { logger })), [
    { op: "add", path: "/metadata/labels", value: { "example.com/reviewed-by": "configmap-policy" } },
  ]);
});
