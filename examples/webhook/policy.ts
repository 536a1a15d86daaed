/**
 * A ConfigMap policy as two webhooks: every ConfigMap must name its owning team (label `team`), and gets the
 * label `example.com/reviewed-by` set (the JSON Patch is computed from the object returned).
 */
import { allow, CONFIG_MAPS, deny, mutatingWebhook, validatingWebhook } from "../../lib/mod.ts";

/** Refuses a ConfigMap without a `team` label. */
export const requireTeam = validatingWebhook({
  name: "configmaps.require-team.example.com",
  resource: CONFIG_MAPS,
  // Only namespaces labelled policy=enforced: try it on one namespace before the whole cluster.
  namespaceSelector: { matchLabels: { policy: "enforced" } },
  validate(request, context) {
    const team = request.object?.metadata.labels?.["team"];
    if (!team) return deny("a ConfigMap needs the label team=<owning team>", { code: 422 });
    if (team === "legacy") context.warn("team=legacy is going away; use your team's name");
    return allow();
  },
});

/** Marks every ConfigMap it sees. */
export const markReviewed = mutatingWebhook({
  name: "configmaps.mark-reviewed.example.com",
  resource: CONFIG_MAPS,
  namespaceSelector: { matchLabels: { policy: "enforced" } },
  failurePolicy: "Ignore", // only a label: never block a write for it
  mutate(configMap) {
    configMap.metadata.labels = {
      ...configMap.metadata.labels,
      "example.com/reviewed-by": "configmap-policy",
    };
    return configMap;
  },
});
