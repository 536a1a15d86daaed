import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import { defaultFlags } from "../../lib/sample_controller/flags.ts";

type Obj = Record<string, unknown> & { kind?: string; metadata?: { name?: string; namespace?: string } };

const root = new URL("../../", import.meta.url);
const dir = new URL("manifests/", root);
const files = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".yaml")).sort();

async function load(url: URL): Promise<Obj[]> {
  const docs = parseAllDocuments(await Deno.readTextFile(url));
  if (!Array.isArray(docs)) return [];
  for (const doc of docs) assert.deepEqual(doc.errors, [], `${url.pathname}: ${doc.errors.join("; ")}`);
  return docs.map((d) => d.toJS() as Obj).filter((o) => o !== null);
}

const byFile = new Map<string, Obj[]>();
for (const name of files) byFile.set(name, await load(new URL(name, dir)));
const installed = files.filter((f) => f !== "kustomization.yaml" && f !== "example-foo.yaml").flatMap((f) =>
  byFile.get(f) ?? []
);
const one = (kind: string, name?: string): Obj => {
  const found = installed.filter((o) => o.kind === kind && (name === undefined || o.metadata?.name === name));
  assert.equal(found.length, 1, `exactly one ${kind} ${name ?? ""}`);
  return found[0]!;
};
// deno-lint-ignore no-explicit-any
const dig = (obj: unknown, ...path: (string | number)[]): any => path.reduce((o: any, k) => o?.[k], obj);

const NS = "kubeloop-system";
const SA = "kubeloop-sample-controller";

/**
 * Rules flattened to sorted "group|resource|verb" strings (plus "|name" per resourceName, when a rule has
 * them), so the comparison is exact.
 */
function flatten(rules: unknown): string[] {
  const out: string[] = [];
  for (
    const rule of rules as {
      apiGroups?: string[];
      resources?: string[];
      nonResourceURLs?: string[];
      verbs: string[];
      resourceNames?: string[];
    }[]
  ) {
    if (rule.nonResourceURLs) {
      assert.equal(rule.resources, undefined, "a rule is about resources or URLs, not both");
      for (const url of rule.nonResourceURLs) for (const v of rule.verbs) out.push(`url|${url}|${v}`);
      continue;
    }
    const names = rule.resourceNames === undefined ? [""] : rule.resourceNames.map((n) => `|${n}`);
    assert.notDeepEqual(names, [], "an empty resourceNames list would mean every name");
    for (const g of rule.apiGroups ?? []) {
      for (const r of rule.resources ?? []) {
        for (const v of rule.verbs) for (const n of names) out.push(`${g}|${r}|${v}${n}`);
      }
    }
  }
  return out.sort();
}

Deno.test("every manifest parses, and the kustomization lists all of them plus the CRDs", async () => {
  const kustomization = byFile.get("kustomization.yaml")?.[0];
  const resources = dig(kustomization, "resources") as string[];
  assert.deepEqual(
    [...resources].sort(),
    ["../crds", ...files.filter((f) => f !== "kustomization.yaml" && f !== "example-foo.yaml")].sort(),
  );
  const crdKustomization = (await load(new URL("crds/Kustomization", root)))[0];
  const crdFiles = [...Deno.readDirSync(new URL("crds/", root))].map((e) => e.name).filter((n) =>
    n.endsWith(".yaml")
  );
  assert.deepEqual([...(dig(crdKustomization, "resources") as string[])].sort(), crdFiles.sort());
});

Deno.test("everything namespaced lives in kubeloop-system, which the manifests create", () => {
  one("Namespace", NS);
  for (const obj of installed) {
    if (["Namespace", "ClusterRole", "ClusterRoleBinding"].includes(obj.kind ?? "")) continue;
    assert.equal(obj.metadata?.namespace, NS, `${obj.kind} ${obj.metadata?.name}`);
  }
  one("ServiceAccount", SA);
});

Deno.test("the ClusterRole grants exactly the verbs the controller sends: no wildcards, secrets, get, update or delete", () => {
  const got = flatten(dig(one("ClusterRole", SA), "rules"));
  const expected = [
    // Informers list and watch.
    ...["list", "watch"].map((v) => `samplecontroller.k8s.io|foos|${v}`),
    ...["list", "watch"].map((v) => `apps|deployments|${v}`),
    // Server-side apply is a PATCH; applying a missing Deployment also needs "create".
    "samplecontroller.k8s.io|foos/status|patch",
    ...["create", "patch"].map((v) => `apps|deployments|${v}`),
    // The event recorder creates events.k8s.io/v1 Events and merge-patches their series.
    ...["create", "patch"].map((v) => `events.k8s.io|events|${v}`),
  ].sort();
  assert.deepEqual(got, expected);
  assert.equal(got.some((r) => r.includes("*") || r.includes("secrets")), false);
});

Deno.test("leader election gets leases create in its own namespace, and get/update of its one Lease by name", () => {
  const role = one("Role");
  assert.equal(role.metadata?.namespace, NS);
  assert.deepEqual(flatten(dig(role, "rules")), [
    // RBAC cannot limit create by name: the object does not exist yet.
    "coordination.k8s.io|leases|create",
    "coordination.k8s.io|leases|get|kubeloop-sample-controller",
    "coordination.k8s.io|leases|update|kubeloop-sample-controller",
  ]);
  const args = dig(one("Deployment", SA), "spec", "template", "spec", "containers", 0, "args") as string[];
  const id = args.find((a) => a.startsWith("--leader-election-id="));
  assert.equal(id, undefined, "the Deployment uses the default Lease name");
  assert.equal(defaultFlags().leaderElectionId, "kubeloop-sample-controller");
  assert.deepEqual(installed.filter((o) => o.kind === "Role").length, 1);
});

Deno.test("every binding binds the controller's ServiceAccount to a role of this project; the reader role is not bound", () => {
  const bindings = installed.filter((o) => o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding");
  assert.deepEqual(bindings.map((b) => `${b.kind}/${b.metadata?.name}`).sort(), [
    "ClusterRoleBinding/kubeloop-sample-controller",
    "ClusterRoleBinding/kubeloop-sample-controller-metrics-auth",
    "RoleBinding/kubeloop-sample-controller-leader-election",
  ]);
  for (const binding of bindings) {
    const roleKind = binding.kind === "RoleBinding" ? "Role" : "ClusterRole";
    assert.deepEqual(dig(binding, "roleRef"), {
      apiGroup: "rbac.authorization.k8s.io",
      kind: roleKind,
      name: binding.metadata?.name,
    });
    one(roleKind, binding.metadata?.name);
    assert.deepEqual(dig(binding, "subjects"), [{ kind: "ServiceAccount", name: SA, namespace: NS }]);
  }
  const reader = `${SA}-metrics-reader`;
  assert.equal(
    bindings.some((b) => dig(b, "roleRef", "name") === reader),
    false,
    "scrapers are bound by the user",
  );
});

Deno.test("secure metrics RBAC: the controller may create TokenReviews and SubjectAccessReviews, nothing more", () => {
  assert.deepEqual(flatten(dig(one("ClusterRole", `${SA}-metrics-auth`), "rules")), [
    "authentication.k8s.io|tokenreviews|create",
    "authorization.k8s.io|subjectaccessreviews|create",
  ]);
  assert.deepEqual(flatten(dig(one("ClusterRole", `${SA}-metrics-reader`), "rules")), ["url|/metrics|get"]);
  assert.equal(installed.filter((o) => o.kind === "ClusterRole").length, 3);
});

Deno.test("metrics are HTTPS on 8443 behind a Service, and a NetworkPolicy admits only the metrics and health ports", () => {
  const dep = one("Deployment", SA);
  const c = dig(dep, "spec", "template", "spec", "containers", 0);
  const args = c.args as string[];
  assert.ok(args.includes("--metrics-secure"));
  assert.equal(args.some((a) => a.startsWith("--metrics-secure=") && a !== "--metrics-secure=true"), false);
  const podLabels = dig(dep, "spec", "template", "metadata", "labels");
  const service = one("Service", `${SA}-metrics`);
  assert.deepEqual(dig(service, "spec", "ports"), [{
    name: "https",
    port: 8443,
    targetPort: "metrics",
    protocol: "TCP",
  }]);
  const selects = (selector: Record<string, string>) =>
    Object.entries(selector).every(([k, v]) => podLabels[k] === v) && Object.keys(selector).length > 0;
  assert.ok(selects(dig(service, "spec", "selector")), "the Service selects the controller pods");
  const policy = one("NetworkPolicy", SA);
  assert.ok(
    selects(dig(policy, "spec", "podSelector", "matchLabels")),
    "the policy selects the controller pods",
  );
  assert.deepEqual(dig(policy, "spec", "policyTypes"), ["Ingress"]);
  const admitted =
    (dig(policy, "spec", "ingress") as { ports: { port: number; protocol: string }[]; from?: unknown }[])
      .flatMap((rule) => rule.ports.map((p) => `${p.port}/${p.protocol}`)).sort();
  const containerPorts = (c.ports as { containerPort: number; protocol: string }[])
    .map((p) => `${p.containerPort}/${p.protocol}`).sort();
  assert.deepEqual(admitted, ["8081/TCP", "8443/TCP"]);
  assert.deepEqual(admitted, containerPorts, "exactly the ports the container declares");
});

Deno.test("the controller Deployment runs 2 replicas with leader election, as the ServiceAccount", () => {
  const dep = one("Deployment", SA);
  assert.equal(dig(dep, "spec", "replicas"), 2);
  const pod = dig(dep, "spec", "template", "spec");
  assert.equal(pod.serviceAccountName, SA);
  assert.equal(pod.automountServiceAccountToken, true);
  assert.equal(pod.containers.length, 1);
  assert.ok((pod.containers[0].args as string[]).includes("--leader-elect"));
  assert.deepEqual(dig(dep, "spec", "selector", "matchLabels"), { "app.kubernetes.io/name": SA });
  assert.equal(dig(dep, "spec", "template", "metadata", "labels", "app.kubernetes.io/name"), SA);
});

Deno.test("the controller container is locked down: non-root 65532, read-only root, no escalation, no capabilities", () => {
  const pod = dig(one("Deployment", SA), "spec", "template", "spec");
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.equal(pod.securityContext.runAsUser, 65532);
  assert.deepEqual(pod.securityContext.seccompProfile, { type: "RuntimeDefault" });
  const sc = pod.containers[0].securityContext;
  assert.equal(sc.runAsNonRoot, true);
  assert.equal(sc.runAsUser, 65532);
  assert.equal(sc.readOnlyRootFilesystem, true);
  assert.equal(sc.allowPrivilegeEscalation, false);
  assert.deepEqual(sc.capabilities, { drop: ["ALL"] });
  assert.deepEqual(sc.seccompProfile, { type: "RuntimeDefault" });
  assert.equal(sc.privileged, undefined);
});

Deno.test("probes hit /healthz and /readyz on 8081, metrics on 8443, and resources are bounded", () => {
  const c = dig(one("Deployment", SA), "spec", "template", "spec", "containers", 0);
  const ports = Object.fromEntries(
    (c.ports as { name: string; containerPort: number }[]).map((p) => [p.name, p.containerPort]),
  );
  assert.deepEqual(ports, { metrics: 8443, health: 8081 });
  assert.equal(c.livenessProbe.httpGet.path, "/healthz");
  assert.equal(c.readinessProbe.httpGet.path, "/readyz");
  for (const probe of [c.livenessProbe, c.readinessProbe]) {
    assert.ok([8081, "health"].includes(probe.httpGet.port));
  }
  const args = c.args as string[];
  assert.ok(args.includes("--health-probe-bind-address=:8081"));
  assert.ok(args.includes("--metrics-bind-address=:8443"));
  for (const kind of ["requests", "limits"]) {
    assert.ok(c.resources[kind].cpu, `${kind}.cpu`);
    assert.ok(c.resources[kind].memory, `${kind}.memory`);
  }
});

Deno.test("the example Foo is upstream's example-foo, unchanged", () => {
  assert.deepEqual(byFile.get("example-foo.yaml"), [{
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name: "example-foo" },
    spec: { deploymentName: "example-foo", replicas: 1 },
  }]);
});
