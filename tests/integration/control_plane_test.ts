// The local control plane is real: namespaces, CRDs, TokenRequest, RBAC and the garbage collector
// all behave as in a cluster. Everything here goes through kubectl, independent of kubeloop's code.
import assert from "node:assert/strict";
import { join } from "node:path";
import { createNamespace, eventually, kubectl, kubectlOk, testEnv } from "../_util/testenv.ts";
import { installFooCrd } from "../_util/sample_controller.ts";

Deno.test("a namespace created for a test exists on the real apiserver", async () => {
  await using ns = await createNamespace("cp-ns");
  const out = await kubectlOk(["get", "namespace", ns.name, "-o", "jsonpath={.status.phase}"]);
  assert.equal(out, "Active");
});

Deno.test("the Foo CRD from crds/ applies, and a Foo can be created and listed through it", async () => {
  await installFooCrd();
  await using ns = await createNamespace("cp-crd");
  const foo = {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name: "example-foo", namespace: ns.name },
    spec: { deploymentName: "example-foo", replicas: 1 },
  };
  await kubectlOk(["apply", "-f", "-"], { stdin: JSON.stringify(foo) });
  const listed = JSON.parse(await kubectlOk(["get", "foos", "-n", ns.name, "-o", "json"])) as {
    items: { metadata: { name: string }; spec: { replicas: number } }[];
  };
  assert.deepEqual(listed.items.map((i) => [i.metadata.name, i.spec.replicas]), [["example-foo", 1]]);
  // The schema is enforced by the server: replicas above 10 is rejected.
  const bad = await kubectl(["apply", "-f", "-"], {
    stdin: JSON.stringify({
      ...foo,
      metadata: { name: "too-many", namespace: ns.name },
      spec: { replicas: 11 },
    }),
  });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /spec.replicas/);
});

Deno.test("a TokenRequest token authenticates, and RBAC denies what it was not granted", async () => {
  await using ns = await createNamespace("cp-rbac");
  await kubectlOk(["create", "serviceaccount", "reader", "-n", ns.name]);
  const token = (await kubectlOk(["create", "token", "reader", "-n", ns.name, "--duration=10m"])).trim();
  assert.match(token, /^eyJ/);

  const dir = await Deno.makeTempDir();
  try {
    const kubeconfig = join(dir, "token.kubeconfig");
    await Deno.writeTextFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{
          name: "c",
          cluster: { server: testEnv.server, "certificate-authority": join(testEnv.dir, "ca.crt") },
        }],
        users: [{ name: "u", user: { token } }],
        contexts: [{ name: "c", context: { cluster: "c", user: "u", namespace: ns.name } }],
        "current-context": "c",
      }),
    );
    const whoami = await kubectlOk(["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"], {
      kubeconfig,
    });
    assert.equal(whoami, `system:serviceaccount:${ns.name}:reader`);

    const denied = await kubectl(["get", "configmaps", "-n", ns.name], { kubeconfig });
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /forbidden/i);

    await kubectlOk([
      "create",
      "role",
      "cm-reader",
      "-n",
      ns.name,
      "--verb=get,list",
      "--resource=configmaps",
    ]);
    await kubectlOk([
      "create",
      "rolebinding",
      "cm-reader",
      "-n",
      ns.name,
      "--role=cm-reader",
      `--serviceaccount=${ns.name}:reader`,
    ]);
    await eventually(
      async () =>
        (await kubectl(["get", "configmaps", "-n", ns.name], { kubeconfig })).code === 0 || undefined,
      {
        message: "the granted list was still refused",
      },
    );
    const secrets = await kubectl(["get", "secrets", "-n", ns.name], { kubeconfig });
    assert.notEqual(secrets.code, 0);
    assert.match(secrets.stderr, /forbidden/i);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kube-controller-manager runs: default service accounts appear and owners cascade deletes", async () => {
  await using ns = await createNamespace("cp-gc");
  await eventually(
    async () => (await kubectl(["get", "serviceaccount", "default", "-n", ns.name])).code === 0 || undefined,
    {
      message: "no default ServiceAccount",
    },
  );
  await kubectlOk(["create", "configmap", "owner", "-n", ns.name]);
  const uid = await kubectlOk(["get", "configmap", "owner", "-n", ns.name, "-o", "jsonpath={.metadata.uid}"]);
  const dependent = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "dependent",
      namespace: ns.name,
      ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid }],
    },
  };
  await kubectlOk(["apply", "-f", "-"], { stdin: JSON.stringify(dependent) });
  await kubectlOk(["delete", "configmap", "owner", "-n", ns.name]);
  await eventually(
    async () => (await kubectl(["get", "configmap", "dependent", "-n", ns.name])).code !== 0 || undefined,
    { message: "the dependent was not garbage-collected", timeoutMs: 60_000 },
  );
});

Deno.test("the aggregated ClusterRoles admin, edit and view get their rules, so bindings to them grant", async () => {
  // Without kube-controller-manager's clusterrole-aggregation controller these stay empty and a
  // RoleBinding to "admin" grants nothing (a controller that binds team admins cannot be tested).
  for (const role of ["admin", "edit", "view"]) {
    await eventually(
      async () =>
        (await kubectlOk(["get", "clusterrole", role, "-o", "jsonpath={.rules[*].verbs}"])) || undefined,
      { message: `ClusterRole ${role} has no rules` },
    );
  }
  await using ns = await createNamespace("cp-agg");
  await kubectlOk([
    "create",
    "rolebinding",
    "alice-admin",
    "-n",
    ns.name,
    "--clusterrole=admin",
    "--user=alice",
  ]);
  const can = (namespace: string) =>
    kubectl(["auth", "can-i", "create", "deployments", "-n", namespace, "--as", "alice"]);
  await eventually(async () => (await can(ns.name)).stdout.trim() === "yes" || undefined, {
    message: "the admin binding grants nothing",
  });
  assert.equal((await can("default")).stdout.trim(), "no", "and only in its namespace");
});
