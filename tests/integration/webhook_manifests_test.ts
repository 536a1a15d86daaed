/**
 * The webhook components rendered by kustomize (kubectl kustomize, as a user's overlay would) and checked
 * by the real API server with a server-side dry run: every object the components add or patch is valid
 * as the cluster sees it. cert-manager's own kinds are left out: the test control plane has no cert-manager.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { kubectlOk } from "../_util/testenv.ts";

const root = new URL("../../", import.meta.url).pathname;

Deno.test("the overlay of manifests/ with both webhook components renders, and the API server accepts it (dry run)", async () => {
  // kustomize reads components and bases by relative path, from inside the repository.
  const overlay = await Deno.makeTempDir({ dir: join(root, "examples"), prefix: ".webhook-overlay-" });
  try {
    await Deno.writeTextFile(
      join(overlay, "kustomization.yaml"),
      [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources: [../../manifests]",
        "components: [../../manifests/webhook, ../../manifests/webhook/cert-manager]",
        "",
      ].join("\n"),
    );
    const rendered = await kubectlOk(["kustomize", overlay]);
    // deno-lint-ignore no-explicit-any
    const objects = parseAllDocuments(rendered).map((d) => d.toJS() as Record<string, any>);
    const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
    const crd = byKind("CustomResourceDefinition")[0]!;
    assert.deepEqual(crd.spec.versions.map((v: { name: string; storage: boolean }) => [v.name, v.storage]), [
      ["v1alpha1", true],
      ["v1beta1", false],
    ]);
    assert.equal(crd.spec.conversion.strategy, "Webhook");
    const inject = "kubeloop-system/kubeloop-sample-controller-webhook";
    for (
      const o of [crd, ...byKind("ValidatingWebhookConfiguration"), ...byKind("MutatingWebhookConfiguration")]
    ) {
      assert.equal(o.metadata.annotations["cert-manager.io/inject-ca-from"], inject, o.kind);
    }
    const deployment = byKind("Deployment")[0]!;
    const container = deployment.spec.template.spec.containers[0];
    assert.ok(container.args.includes("--webhook-bind-address=:9443"));
    assert.ok(container.args.includes("--leader-elect"), "the base's flags are kept");
    assert.deepEqual(container.ports.map((p: { name: string }) => p.name), ["metrics", "health", "webhook"]);
    assert.deepEqual(byKind("Certificate").length, 1);
    // The namespace is real (other tests install it too); everything else is only checked.
    await kubectlOk(["apply", "-f", join(root, "manifests/namespace.yaml")]);
    const checkable = objects.filter((o) => !String(o.apiVersion).startsWith("cert-manager.io/"));
    const out = await kubectlOk(["apply", "--dry-run=server", "-f", "-"], {
      stdin: checkable.map((o) => JSON.stringify(o)).join("\n"),
    });
    for (
      const kind of [
        "validatingwebhookconfiguration",
        "mutatingwebhookconfiguration",
        "service",
        "deployment",
      ]
    ) {
      assert.match(out, new RegExp(`^${kind}[^ ]* .* \\(server dry run\\)$`, "m"), kind);
    }
  } finally {
    await Deno.remove(overlay, { recursive: true });
  }
});

Deno.test("the overlay with the self-managed component renders without a mounted Secret, and the API server accepts it (dry run)", async () => {
  const overlay = await Deno.makeTempDir({ dir: join(root, "examples"), prefix: ".webhook-overlay-" });
  try {
    await Deno.writeTextFile(
      join(overlay, "kustomization.yaml"),
      [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources: [../../manifests]",
        "components: [../../manifests/webhook, ../../manifests/webhook/self-managed]",
        "",
      ].join("\n"),
    );
    const rendered = await kubectlOk(["kustomize", overlay]);
    // deno-lint-ignore no-explicit-any
    const objects = parseAllDocuments(rendered).map((d) => d.toJS() as Record<string, any>);
    const deployment = objects.find((o) => o.kind === "Deployment");
    const pod = deployment!.spec.template.spec;
    const args: string[] = pod.containers[0].args;
    assert.ok(
      args.includes("--webhook-cert-secret=kubeloop-sample-controller-webhook-certs"),
      args.join(" "),
    );
    assert.ok(!args.some((a) => a.startsWith("--webhook-cert-path")));
    assert.deepEqual(
      pod.volumes.map((v: { name: string }) => v.name),
      ["tmp"],
      "no Secret volume to wait for",
    );
    assert.deepEqual(pod.containers[0].volumeMounts.map((v: { name: string }) => v.name), ["tmp"]);
    assert.ok(!rendered.includes("cert-manager.io"), "nothing of cert-manager");
    await kubectlOk(["apply", "-f", join(root, "manifests/namespace.yaml")]);
    const out = await kubectlOk(["apply", "--dry-run=server", "-f", "-"], {
      stdin: objects.map((o) => JSON.stringify(o)).join("\n"),
    });
    for (const kind of ["role", "clusterrole", "rolebinding", "clusterrolebinding", "deployment"]) {
      assert.match(out, new RegExp(`^${kind}[^ ]* .* \\(server dry run\\)$`, "m"), kind);
    }
  } finally {
    await Deno.remove(overlay, { recursive: true });
  }
});
