import assert from "node:assert/strict";
import { join } from "node:path";
import { createNamespace, eventually, kubectl, kubectlOk } from "../_util/testenv.ts";
import { installSampleControllerPrerequisites } from "../_util/sample_controller.ts";
import { startController } from "./controller_process.ts";

const root = new URL("../../", import.meta.url).pathname;

// deno-lint-ignore no-explicit-any
type Json = any;

async function getJson(args: string[]): Promise<Json | undefined> {
  const r = await kubectl([...args, "-o", "json"]);
  return r.code === 0 ? JSON.parse(r.stdout) : undefined;
}

function applyFoo(ns: string, name: string, spec: Record<string, unknown>): Promise<string> {
  const foo = {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name, namespace: ns },
    spec,
  };
  return kubectlOk(["apply", "-f", "-"], { stdin: JSON.stringify(foo) });
}

/** Sets the example Foo's spec.replicas with a merge patch, as a user would. */
async function scaleFoo(namespace: string, replicas: number): Promise<void> {
  const patch = JSON.stringify({ spec: { replicas } });
  await kubectlOk(["patch", "foo", "example-foo", "-n", namespace, "--type=merge", "-p", patch]);
}

function ready(foo: Json): Json {
  return foo?.status?.conditions?.find((c: Json) => c.type === "Ready");
}

Deno.test("kubectl apply -k manifests/ --dry-run=server is accepted by the real apiserver", async () => {
  // A server dry run cannot create objects inside a namespace that does not exist yet, so that one goes first.
  await kubectlOk(["apply", "-f", join(root, "manifests", "namespace.yaml")]);
  const out = await kubectlOk(["apply", "-k", join(root, "manifests"), "--dry-run=server"]);
  assert.match(out, /deployment\.apps\/kubeloop-sample-controller .*\(server dry run\)/);
  assert.match(
    out,
    /clusterrole\.rbac\.authorization\.k8s\.io\/kubeloop-sample-controller .*\(server dry run\)/,
  );
});

Deno.test("the shipped RBAC grants nothing broader: the controller's token cannot read Secrets or delete Deployments", async () => {
  await installSampleControllerPrerequisites();
  const sa = "system:serviceaccount:kubeloop-system:kubeloop-sample-controller";
  const can = async (...args: string[]) =>
    (await kubectl(["auth", "can-i", ...args, `--as=${sa}`])).stdout.trim();
  assert.equal(await can("list", "secrets", "-A"), "no");
  assert.equal(await can("get", "secrets", "-n", "kubeloop-system"), "no");
  assert.equal(await can("delete", "deployments", "-A"), "no");
  assert.equal(await can("create", "leases", "-n", "default"), "no");
  assert.equal(await can("create", "leases", "-n", "kubeloop-system"), "yes");
  assert.equal(await can("update", "leases/kubeloop-sample-controller", "-n", "kubeloop-system"), "yes");
  assert.equal(await can("update", "leases/another-controllers-lease", "-n", "kubeloop-system"), "no");
  assert.equal(await can("get", "leases/another-controllers-lease", "-n", "kubeloop-system"), "no");
  assert.equal(await can("patch", "foos.samplecontroller.k8s.io", "--subresource=status", "-A"), "yes");
  assert.equal(await can("update", "foos.samplecontroller.k8s.io", "-A"), "no");
  assert.equal(await can("update", "foos.samplecontroller.k8s.io", "--subresource=status", "-A"), "no");
  // Server-side apply of a Deployment that does not exist yet is checked as "create" as well as "patch".
  assert.equal(await can("create", "deployments.apps", "-A"), "yes");
  assert.equal(await can("patch", "deployments.apps", "-A"), "yes");
  assert.equal(await can("update", "deployments.apps", "-A"), "no");
  assert.equal(await can("get", "deployments.apps", "-A"), "no");
  assert.equal(await can("create", "events.events.k8s.io", "-A"), "yes");
  assert.equal(await can("create", "events", "-A"), "no", "core Events are never written");
});

Deno.test("the controller, in-cluster with the shipped RBAC, behaves like sample-controller and better", async (t) => {
  await installSampleControllerPrerequisites();
  await using ns = await createNamespace("e2e-foo");
  const controller = await startController();
  try {
    await t.step("it becomes ready (caches synced)", async () => {
      await eventually(async () => {
        const res = await fetch(`${controller.healthUrl}/readyz`).catch(() => undefined);
        await res?.body?.cancel();
        return res?.ok ? true : undefined;
      }, { timeoutMs: 30_000, message: `not ready; logs:\n${controller.logs()}` });
    });

    await t.step("upstream's example-foo applies unchanged and gets its owned Deployment", async () => {
      await kubectlOk(["apply", "-n", ns.name, "-f", join(root, "manifests", "example-foo.yaml")]);
      const dep = await eventually(
        () => getJson(["get", "deployment", "example-foo", "-n", ns.name, "--show-managed-fields"]),
        {
          message: `no Deployment; logs:\n${controller.logs()}`,
        },
      );
      const foo = await getJson(["get", "foo", "example-foo", "-n", ns.name]);
      assert.equal(dep.spec.replicas, 1);
      assert.deepEqual(dep.spec.selector.matchLabels, { app: "nginx", controller: "example-foo" });
      assert.equal(dep.spec.template.spec.containers[0].image, "nginx:latest");
      assert.deepEqual(dep.metadata.ownerReferences, [{
        apiVersion: "samplecontroller.k8s.io/v1alpha1",
        kind: "Foo",
        name: "example-foo",
        uid: foo.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      }]);
      // Created with a POST (a Deployment the cache does not hold is never force-applied); later changes are
      // server-side applied by the same field manager.
      const managers = (dep.metadata.managedFields as Json[]).map((m) => `${m.manager}/${m.operation}`);
      assert.ok(managers.includes("kubeloop-sample-controller/Update"), managers.join(","));
    });

    await t.step("status gets observedGeneration and Ready=False while no replica is available", async () => {
      const foo = await eventually(async () => {
        const f = await getJson(["get", "foo", "example-foo", "-n", ns.name]);
        return f?.status?.observedGeneration === f?.metadata.generation && ready(f) ? f : undefined;
      });
      assert.equal(foo.status.availableReplicas, 0);
      assert.equal(ready(foo).status, "False");
      assert.equal(ready(foo).reason, "Progressing");
    });

    await t.step("scaling the Foo scales the Deployment", async () => {
      await scaleFoo(ns.name, 3);
      await eventually(async () => {
        const dep = await getJson(["get", "deployment", "example-foo", "-n", ns.name]);
        return dep?.spec.replicas === 3 ? true : undefined;
      });
    });

    await t.step(
      "a Deployment status patched as the deployment controller would is mirrored on the Foo",
      async () => {
        await kubectlOk([
          "patch",
          "deployment",
          "example-foo",
          "-n",
          ns.name,
          "--subresource=status",
          "--type=merge",
          "-p",
          '{"status":{"replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3}}',
        ]);
        const foo = await eventually(async () => {
          const f = await getJson(["get", "foo", "example-foo", "-n", ns.name]);
          return f?.status?.availableReplicas === 3 ? f : undefined;
        });
        assert.equal(ready(foo).status, "True");
        assert.equal(ready(foo).reason, "Available");
      },
    );

    await t.step("a hand edit of our fields is reverted; a foreign annotation is left alone", async () => {
      await kubectlOk([
        "patch",
        "deployment",
        "example-foo",
        "-n",
        ns.name,
        "--type=json",
        "-p",
        JSON.stringify([
          { op: "replace", path: "/spec/replicas", value: 7 },
          { op: "replace", path: "/spec/template/spec/containers/0/image", value: "nginx:1.0" },
          { op: "add", path: "/metadata/annotations", value: { "example.com/owner": "team-a" } },
        ]),
      ]);
      const dep = await eventually(async () => {
        const d = await getJson(["get", "deployment", "example-foo", "-n", ns.name]);
        return d?.spec.replicas === 3 && d.spec.template.spec.containers[0].image === "nginx:latest"
          ? d
          : undefined;
      });
      assert.equal(dep.metadata.annotations["example.com/owner"], "team-a");
    });

    await t.step(
      "another manager's condition survives our status writes and stays that manager's",
      async () => {
        const other = {
          apiVersion: "samplecontroller.k8s.io/v1alpha1",
          kind: "Foo",
          metadata: { name: "example-foo", namespace: ns.name },
          status: {
            conditions: [{
              type: "Other",
              status: "True",
              reason: "SetByOther",
              message: "written by another field manager",
              lastTransitionTime: "2026-01-01T00:00:00Z",
            }],
          },
        };
        await kubectlOk([
          "apply",
          "--server-side",
          "--subresource=status",
          "--field-manager=other-manager",
          "-f",
          "-",
        ], { stdin: JSON.stringify(other) });
        // A new spec generation makes the controller write status again (observedGeneration moves).
        await scaleFoo(ns.name, 2);
        const foo = await eventually(async () => {
          const f = await getJson(["get", "foo", "example-foo", "-n", ns.name, "--show-managed-fields"]);
          return f && f.status?.observedGeneration === f.metadata.generation ? f : undefined;
        }, { message: `no status write for the new generation; logs:\n${controller.logs()}` });
        const conditions = (foo.status.conditions as Json[]).map((c) => `${c.type}=${c.status}`).sort();
        assert.deepEqual(conditions, ["Other=True", "Ready=False"]);
        const ownersOf = (type: string) =>
          (foo.metadata.managedFields as Json[])
            .filter((m) => m.fieldsV1?.["f:status"]?.["f:conditions"]?.[`k:{"type":"${type}"}`])
            .map((m) => m.manager);
        assert.deepEqual(ownersOf("Other"), ["other-manager"]);
        assert.deepEqual(ownersOf("Ready"), ["kubeloop-sample-controller"]);
        // Back to 3 replicas for the steps below.
        await scaleFoo(ns.name, 3);
        await eventually(async () => {
          const f = await getJson(["get", "foo", "example-foo", "-n", ns.name]);
          return f?.status?.observedGeneration === f?.metadata.generation && ready(f)?.status === "True"
            ? true
            : undefined;
        });
      },
    );

    await t.step("kubectl get foos shows the printer columns", async () => {
      const out = await kubectlOk(["get", "foos", "-n", ns.name]);
      const [header, row] = out.trim().split("\n");
      assert.deepEqual(header?.split(/\s+/), ["NAME", "DEPLOYMENT", "DESIRED", "AVAILABLE", "READY", "AGE"]);
      assert.match(row ?? "", /^example-foo\s+example-foo\s+3\s+3\s+True\s+\S+$/);
    });

    await t.step("kubectl describe foo shows the Synced event", async () => {
      await eventually(async () => {
        const out = await kubectlOk(["describe", "foo", "example-foo", "-n", ns.name]);
        return /Normal\s+Synced\s+.*Foo synced successfully/.test(out) ? true : undefined;
      }, { message: "no Synced event in kubectl describe" });
    });

    await t.step(
      "an unowned Deployment of that name: Warning event, condition, bounded retries, untouched",
      async () => {
        await kubectlOk(["create", "deployment", "taken", "-n", ns.name, "--image=busybox", "--replicas=1"]);
        const before = await getJson(["get", "deployment", "taken", "-n", ns.name]);
        const appliedAt = Date.now();
        await applyFoo(ns.name, "conflict", { deploymentName: "taken", replicas: 2 });
        const foo = await eventually(async () => {
          const f = await getJson(["get", "foo", "conflict", "-n", ns.name]);
          return ready(f)?.reason === "ErrResourceExists" ? f : undefined;
        });
        assert.equal(ready(foo).status, "False");
        assert.equal(ready(foo).message, 'Resource "taken" already exists and is not managed by Foo');
        const events = await eventually(async () => {
          const list = await getJson([
            "get",
            "events.v1.events.k8s.io",
            "-n",
            ns.name,
            "--field-selector=regarding.name=conflict,reason=ErrResourceExists",
          ]);
          return list?.items.length > 0 ? list.items : undefined;
        });
        assert.equal(events[0].type, "Warning");
        // Backoff, not a hot loop. The controller's default rate limiter waits 5 ms * 2^n before the
        // (n+1)th retry of a key, so within E ms of the apply at most log2(E / 5 + 1) + 1 attempts can fail;
        // 2 more allow for reconciles the Foo's own events trigger. A hot loop fails hundreds of times.
        await new Promise((r) => setTimeout(r, 3000));
        const failures = controller.logs().split("\n").filter((line) => {
          try {
            const entry = JSON.parse(line);
            return entry.msg === "Reconciler error" && entry.key === `${ns.name}/conflict`;
          } catch {
            return false;
          }
        }).length;
        const elapsedMs = Date.now() - appliedAt;
        const bound = Math.floor(Math.log2(elapsedMs / 5 + 1)) + 1 + 2;
        assert.ok(failures >= 3, `it kept retrying: ${failures} failed reconciles in ${elapsedMs} ms`);
        assert.ok(
          failures <= bound,
          `${failures} failed reconciles in ${elapsedMs} ms, backoff allows ${bound}`,
        );
        // The repeats are one aggregated Event, and the Deployment is untouched.
        const after = await getJson([
          "get",
          "events.v1.events.k8s.io",
          "-n",
          ns.name,
          "--field-selector=reason=ErrResourceExists",
        ]);
        assert.equal(after.items.length, 1);
        const dep = await getJson(["get", "deployment", "taken", "-n", ns.name]);
        assert.equal(dep.metadata.resourceVersion, before.metadata.resourceVersion);
        assert.equal(dep.metadata.ownerReferences, undefined);
      },
    );

    await t.step("an empty deploymentName is reported as InvalidSpec", async () => {
      await applyFoo(ns.name, "empty", { deploymentName: "", replicas: 1 });
      await eventually(async () => {
        const f = await getJson(["get", "foo", "empty", "-n", ns.name]);
        return ready(f)?.reason === "InvalidSpec" ? true : undefined;
      });
    });

    await t.step(
      "renaming deploymentName creates the new Deployment and keeps the old one owned",
      async () => {
        await applyFoo(ns.name, "renamed", { deploymentName: "first", replicas: 1 });
        await eventually(() => getJson(["get", "deployment", "first", "-n", ns.name]));
        await applyFoo(ns.name, "renamed", { deploymentName: "second", replicas: 1 });
        await eventually(() => getJson(["get", "deployment", "second", "-n", ns.name]));
        const old = await getJson(["get", "deployment", "first", "-n", ns.name]);
        assert.equal(old.metadata.ownerReferences[0].name, "renamed");
        await eventually(async () => {
          const out = await kubectlOk(["describe", "foo", "renamed", "-n", ns.name]);
          return /DeploymentRetained/.test(out) ? true : undefined;
        });
      },
    );

    await t.step("deleting a Foo garbage-collects all Deployments it owns", async () => {
      await kubectlOk(["delete", "foo", "example-foo", "renamed", "-n", ns.name, "--wait=true"]);
      await eventually(async () => {
        const list = await getJson(["get", "deployments", "-n", ns.name]);
        const names = (list?.items as Json[] ?? []).map((d) => d.metadata.name).sort();
        return names.join(",") === "taken" ? true : undefined;
        // The garbage collector notices a CRD created after it started at its next discovery
        // resync (every 30 s), so the first cascade for Foos can take that long.
      }, { timeoutMs: 90_000, intervalMs: 500, message: "owned Deployments were not garbage-collected" });
    });

    await t.step("/metrics serves controller-runtime style metrics", async () => {
      const text = await controller.scrapeMetrics();
      assert.match(text, /controller_runtime_reconcile_total\{/);
      assert.match(text, /leader_election_master_status\{name="kubeloop-sample-controller"\} 1/);
      // The informers were fed by their watches the whole time, without a single failed watch.
      assert.match(
        text,
        /kubeloop_informer_events_total\{resource="samplecontroller.k8s.io\/v1alpha1\/foos",type="ADDED"\} [1-9]/,
      );
      assert.doesNotMatch(text, /kubeloop_informer_(watch|decode)_errors_total\{[^}]*\} [1-9]/);
    });
  } finally {
    const code = await controller.stop();
    assert.equal(code, 0, `exit code ${code}; logs:\n${controller.logs()}`);
  }
});
