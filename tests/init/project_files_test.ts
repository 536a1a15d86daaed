/**
 * The generated project's files as text, for a namespaced and a cluster-scoped kind: every YAML parses;
 * the RBAC grants exactly what the generated controller sends; the Deployment is hardened exactly like
 * kubeloop's own; the Dockerfile pins kubeloop's reviewed base images; the tasks' permissions agree. The
 * end-to-end test (tests/e2e/init_project_test.ts) proves the same files work.
 */
import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import type { InitArgs } from "../../lib/init/args.ts";
import { type Project, projectOf } from "../../lib/init/project.ts";
import { projectFiles } from "../../lib/init/project_files.ts";
import { BUILD_IMAGE, RUNTIME_IMAGE } from "../../lib/init/templates/dockerfile.ts";
import { docComment, LINE_WIDTH } from "../../lib/init/templates/doc_comment.ts";

type Obj = Record<string, unknown> & { kind?: string; metadata?: { name?: string; namespace?: string } };

const root = new URL("../../", import.meta.url);

function project(overrides: Partial<InitArgs> = {}): Project {
  const args: InitArgs = {
    dir: "my-operator",
    name: "my-operator",
    group: "example.com",
    version: "v1alpha1",
    kind: "Widget",
    plural: "widgets",
    namespaced: true,
    package: undefined,
    ...overrides,
  };
  return projectOf(args, { specifier: "jsr:@kubeloop/kubeloop@^0.1.0" });
}

const namespaced = project();
const clusterScoped = project({
  name: "policy-op",
  group: "policy.acme.io",
  kind: "NetworkPolicySet",
  plural: "networkpolicysets",
  namespaced: false,
});

function yaml(text: string, file: string): Obj[] {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return [];
  for (const doc of docs) assert.deepEqual(doc.errors, [], `${file}: ${doc.errors.join("; ")}`);
  return docs.map((d) => d.toJS() as Obj).filter((o) => o !== null);
}

/** Every object manifests/kustomization.yaml installs, the CRD included. */
function installed(p: Project): Obj[] {
  const files = projectFiles(p);
  const kustomization = yaml(files.get("manifests/kustomization.yaml")!, "kustomization")[0]!;
  const out: Obj[] = [];
  for (const resource of kustomization["resources"] as string[]) {
    if (resource === "../crds") {
      const crds = yaml(files.get("crds/Kustomization")!, "crds/Kustomization")[0]!;
      for (const crd of crds["resources"] as string[]) out.push(...yaml(files.get(`crds/${crd}`)!, crd));
    } else {
      const text = files.get(`manifests/${resource}`);
      assert.ok(text !== undefined, `manifests/${resource} is generated`);
      out.push(...yaml(text, resource));
    }
  }
  return out;
}

// deno-lint-ignore no-explicit-any
const dig = (obj: unknown, ...path: (string | number)[]): any => path.reduce((o: any, k) => o?.[k], obj);

function one(objects: Obj[], kind: string, name?: string): Obj {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata?.name === name));
  assert.equal(found.length, 1, `exactly one ${kind} ${name ?? ""}`);
  return found[0]!;
}

/** Rules as sorted "group|resource|verb[|name]" strings. */
function flatten(rules: unknown): string[] {
  const out: string[] = [];
  for (
    const rule of rules as {
      apiGroups: string[];
      resources: string[];
      verbs: string[];
      resourceNames?: string[];
    }[]
  ) {
    const names = rule.resourceNames?.map((n) => `|${n}`) ?? [""];
    for (const g of rule.apiGroups) {
      for (const r of rule.resources) {
        for (const v of rule.verbs) for (const n of names) out.push(`${g}|${r}|${v}${n}`);
      }
    }
  }
  return out.sort();
}

Deno.test("no template leaves a placeholder, an undefined or an object behind", () => {
  for (const p of [namespaced, clusterScoped]) {
    for (const [path, text] of projectFiles(p)) {
      assert.doesNotMatch(text, /\[object Object\]|\$\{(p\.|K\}|v\}|R\})/, path);
      // Generated TypeScript may hold its own `${…}` and undefined; nothing else may.
      if (!path.endsWith(".ts")) assert.doesNotMatch(text, /\$\{|\bundefined\b/, path);
      assert.ok(text.endsWith("\n") && !text.endsWith("\n\n"), `${path} ends with one newline`);
    }
  }
});

Deno.test("the kustomization installs the CRD, the namespace, the ServiceAccount, RBAC and the Deployment", () => {
  for (const p of [namespaced, clusterScoped]) {
    const objects = installed(p);
    const crd = one(objects, "CustomResourceDefinition", p.crdName);
    assert.equal(dig(crd, "spec", "scope"), p.namespaced ? "Namespaced" : "Cluster");
    const version = dig(crd, "spec", "versions", 0);
    assert.deepEqual(dig(version, "subresources"), { status: {} });
    assert.deepEqual(
      (dig(version, "additionalPrinterColumns") as { name: string }[]).map((c) => c.name),
      ["Message", "Ready", "Age"],
    );
    one(objects, "Namespace", p.namespace);
    one(objects, "ServiceAccount", p.name);
    one(objects, "Deployment", p.name);
    for (const obj of objects) {
      if (
        ["Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition"].includes(
          obj.kind ?? "",
        )
      ) {
        continue;
      }
      assert.equal(obj.metadata?.namespace, p.namespace, `${obj.kind} ${obj.metadata?.name}`);
    }
  }
});

Deno.test("RBAC grants exactly the verbs the controller sends, ConfigMaps only where they live", () => {
  const kindRules = (p: Project) => [
    ...["list", "watch", "get", "patch"].map((v) => `${p.group}|${p.plural}|${v}`),
    `${p.group}|${p.plural}/status|patch`,
    `${p.group}|${p.plural}/finalizers|update`,
  ];
  const configMaps = ["list", "watch", "create", "patch"].map((v) => `|configmaps|${v}`);
  const lease = (p: Project) => [
    "coordination.k8s.io|leases|create",
    `coordination.k8s.io|leases|get|${p.name}`,
    `coordination.k8s.io|leases|update|${p.name}`,
  ];

  const a = installed(namespaced);
  assert.deepEqual(
    flatten(dig(one(a, "ClusterRole"), "rules")),
    [...kindRules(namespaced), ...configMaps].sort(),
  );
  assert.deepEqual(flatten(dig(one(a, "Role"), "rules")), lease(namespaced));

  const b = installed(clusterScoped);
  assert.deepEqual(flatten(dig(one(b, "ClusterRole"), "rules")), kindRules(clusterScoped).sort());
  const roles = b.filter((o) => o.kind === "Role");
  assert.deepEqual(
    roles.map((r) => flatten(dig(r, "rules"))).sort(),
    [lease(clusterScoped), configMaps.sort()].sort(),
  );

  for (const p of [namespaced, clusterScoped]) {
    const objects = installed(p);
    const bindings = objects.filter((o) => o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding");
    assert.equal(
      bindings.length,
      objects.filter((o) => o.kind === "ClusterRole" || o.kind === "Role").length,
    );
    for (const binding of bindings) {
      const roleKind = binding.kind === "RoleBinding" ? "Role" : "ClusterRole";
      assert.deepEqual(dig(binding, "roleRef"), {
        apiGroup: "rbac.authorization.k8s.io",
        kind: roleKind,
        name: binding.metadata?.name,
      });
      assert.deepEqual(dig(binding, "subjects"), [{
        kind: "ServiceAccount",
        name: p.name,
        namespace: p.namespace,
      }]);
    }
    const all = objects.filter((o) => o.kind === "ClusterRole" || o.kind === "Role").flatMap((r) =>
      flatten(dig(r, "rules"))
    );
    assert.equal(all.some((r) => r.includes("*") || r.includes("secrets") || r.includes("|delete")), false);
  }
});

Deno.test("the Deployment is hardened exactly like kubeloop's own, with limits and probes", async () => {
  const ours =
    yaml(await Deno.readTextFile(new URL("manifests/deployment.yaml", root)), "deployment.yaml")[0];
  const generated = one(installed(namespaced), "Deployment");
  const pod = (d: unknown) => dig(d, "spec", "template", "spec");
  const container = (d: unknown) => dig(pod(d), "containers", 0);
  assert.deepEqual(dig(pod(generated), "securityContext"), dig(pod(ours), "securityContext"));
  assert.deepEqual(dig(container(generated), "securityContext"), dig(container(ours), "securityContext"));
  assert.deepEqual(dig(container(generated), "securityContext"), {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    runAsUser: 65532,
    capabilities: { drop: ["ALL"] },
    seccompProfile: { type: "RuntimeDefault" },
  });
  assert.deepEqual(dig(container(generated), "resources"), dig(container(ours), "resources"));
  assert.deepEqual(dig(pod(generated), "volumes"), dig(pod(ours), "volumes"));
  assert.equal(dig(pod(generated), "serviceAccountName"), "my-operator");
  assert.equal(dig(container(generated), "livenessProbe", "httpGet", "path"), "/healthz");
  assert.equal(dig(container(generated), "readinessProbe", "httpGet", "path"), "/readyz");
  assert.ok((dig(container(generated), "args") as string[]).includes("--leader-elect"));
});

Deno.test("the Dockerfile pins kubeloop's base images and builds through the compile task", async () => {
  const ours = await Deno.readTextFile(new URL("Dockerfile", root));
  const from = (text: string) => [...text.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
  assert.deepEqual(from(ours), [BUILD_IMAGE, RUNTIME_IMAGE]);
  const generated = projectFiles(namespaced).get("Dockerfile")!;
  assert.deepEqual(from(generated), [BUILD_IMAGE, RUNTIME_IMAGE]);
  assert.match(generated, /^RUN deno task compile$/m);
  assert.match(generated, /^USER 65532:65532$/m);
  assert.match(generated, /^ENTRYPOINT \["\/usr\/local\/bin\/my-operator"\]$/m);
});

Deno.test("deno.json: compile reads only the service-account files, otherwise start's permissions", () => {
  const config = JSON.parse(projectFiles(namespaced).get("deno.json")!) as {
    imports: Record<string, string>;
    links?: string[];
    tasks: Record<string, string>;
  };
  assert.deepEqual(config.imports, { "@kubeloop/kubeloop": "jsr:@kubeloop/kubeloop@^0.1.0" });
  assert.equal(config.links, undefined, "a registry package is not linked");
  const flags = (task: string) =>
    (config.tasks[task] ?? "").split(/\s+/).filter((f) => f.startsWith("--") && !f.startsWith("--output"))
      .sort();
  const isRead = (f: string) => f.startsWith("--allow-read");
  assert.deepEqual(flags("compile").filter(isRead), [
    "--allow-read=/var/run/secrets/kubernetes.io/serviceaccount",
  ]);
  assert.deepEqual(flags("start").filter(isRead), ["--allow-read"]);
  assert.deepEqual(
    flags("compile").filter((f) => !isRead(f) && f !== "--frozen"),
    flags("start").filter((f) => !isRead(f)),
  );
  assert.equal(
    flags("start").some((f) => f === "--allow-all" || f === "--allow-run" || f === "--allow-write"),
    false,
  );

  const linked = projectOf({ ...namespaced, dir: "x", package: undefined }, {
    specifier: "jsr:@kubeloop/kubeloop@^0.1.0",
    link: "/src/kubeloop",
  });
  assert.deepEqual(JSON.parse(projectFiles(linked).get("deno.json")!).links, ["/src/kubeloop"]);
});

Deno.test("doc comments wrap at the project's line width, list items with a hanging indent", () => {
  const text = docComment(`${"word ".repeat(40).trim()}\n- ${"item ".repeat(30).trim()}\n@module`, "  ");
  const lines = text.split("\n");
  assert.ok(lines.every((l) => l.length <= LINE_WIDTH), text);
  assert.equal(lines[0], "  /**");
  assert.ok(lines.some((l) => l.startsWith("   * - item")));
  assert.ok(lines.some((l) => l.startsWith("   *   item")), "continuation of a list item");
  assert.equal(lines.at(-2), "   * @module");
  assert.equal(lines.at(-1), "   */");
});
