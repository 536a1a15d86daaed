import assert from "node:assert/strict";
import { join } from "node:path";
import { createNamespace, eventually, kubectl, kubectlOk } from "../_util/testenv.ts";
import { installSampleControllerPrerequisites } from "../_util/sample_controller.ts";
import { startController } from "./controller_process.ts";
import { watchFoos } from "./foo_watch.ts";

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

function condition(object: Json, type: string): Json {
  return object?.status?.conditions?.find((c: Json) => c.type === type);
}

/** The Pods of a Foo's Deployment (its template labels them `controller=<foo>`), sorted by name. */
async function podsOf(namespace: string, foo: string): Promise<Json[]> {
  const list = await getJson(["get", "pods", "-n", namespace, "-l", `controller=${foo}`]);
  return ((list?.items ?? []) as Json[]).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

/** Waits until the Foo mirrors `replicas` available replicas of its current generation with Ready=True. */
function fooAvailable(namespace: string, name: string, replicas: number, timeoutMs = 60_000): Promise<Json> {
  return eventually(async () => {
    const f = await getJson(["get", "foo", name, "-n", namespace]);
    return f?.status?.observedGeneration === f?.metadata.generation &&
        f?.status?.availableReplicas === replicas && ready(f)?.status === "True"
      ? f
      : undefined;
  }, { timeoutMs, message: `Foo ${name} never had ${replicas} available replicas and Ready=True` });
}

/** Sets the Ready and ContainersReady conditions of a Pod, as its kubelet would after a readiness probe. */
async function setPodReady(namespace: string, pod: string, status: "True" | "False"): Promise<void> {
  const conditions = ["Ready", "ContainersReady"].map((type) => ({ type, status }));
  await kubectlOk([
    "patch",
    "pod",
    pod,
    "-n",
    namespace,
    "--subresource=status",
    "--type=strategic",
    "-p",
    JSON.stringify({ status: { conditions } }),
  ]);
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
  await using fooWatch = await watchFoos(ns.name);
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

    await t.step(
      "the real deployment and replicaset controllers create its Pod; kube-scheduler puts it on a simulated node",
      async () => {
        const [pod] = await eventually(async () => {
          const pods = await podsOf(ns.name, "example-foo");
          return pods.length === 1 && pods[0].spec.nodeName ? pods : undefined;
        }, { timeoutMs: 60_000, message: "no scheduled Pod for example-foo" });
        const dep = await getJson(["get", "deployment", "example-foo", "-n", ns.name]);
        const rsOwner = pod.metadata.ownerReferences[0];
        assert.equal(rsOwner.kind, "ReplicaSet");
        assert.equal(rsOwner.controller, true);
        const rs = await getJson(["get", "replicaset", rsOwner.name, "-n", ns.name]);
        assert.equal(rs.metadata.ownerReferences[0].kind, "Deployment");
        assert.equal(rs.metadata.ownerReferences[0].uid, dep.metadata.uid);
        assert.match(pod.spec.nodeName, /^kwok-node-\d+$/);
        const node = await getJson(["get", "node", pod.spec.nodeName]);
        assert.equal(node.metadata.annotations["kwok.x-k8s.io/node"], "fake");
      },
    );

    await t.step(
      "the Foo mirrors availability from its Pod: Ready=False (Progressing) first, Ready=True once KWOK runs it",
      async () => {
        const foo = await fooAvailable(ns.name, "example-foo", 1);
        assert.equal(ready(foo).reason, "Available");
        assert.equal(ready(foo).message, 'Deployment "example-foo" has 1/1 available replicas');
        const [pod] = await podsOf(ns.name, "example-foo");
        assert.equal(pod.status.phase, "Running");
        assert.equal(condition(pod, "Ready").status, "True");
        const dep = await getJson(["get", "deployment", "example-foo", "-n", ns.name]);
        assert.equal(dep.status.availableReplicas, 1);
        // Every status write, in order: nothing available at first, then the one Pod.
        const states = fooWatch.states("example-foo");
        const first = states.findIndex((line) => line === "0 False Progressing");
        const last = states.lastIndexOf("1 True Available");
        assert.ok(first >= 0 && last > first, `status writes seen: ${states.join(" | ")}`);
      },
    );

    await t.step(
      "scaling the Foo to 3 runs three simulated Pods, and the Foo reports 3 available",
      async () => {
        await scaleFoo(ns.name, 3);
        const foo = await fooAvailable(ns.name, "example-foo", 3);
        assert.equal(ready(foo).message, 'Deployment "example-foo" has 3/3 available replicas');
        const pods = await podsOf(ns.name, "example-foo");
        assert.equal(pods.length, 3);
        for (const pod of pods) {
          assert.equal(pod.status.phase, "Running");
          assert.equal(condition(pod, "Ready").status, "True");
          assert.match(pod.spec.nodeName, /^kwok-node-\d+$/);
        }
        const dep = await getJson(["get", "deployment", "example-foo", "-n", ns.name]);
        assert.equal(dep.spec.replicas, 3);
        assert.equal(dep.status.availableReplicas, 3);
      },
    );

    await t.step(
      "a Pod that stops being Ready turns the Foo Ready=False, and back once it recovers",
      async () => {
        // The one hand-made state in this suite: no kubelet runs readiness probes here, so a running Pod can only
        // lose readiness by having its status patched as a kubelet would. KWOK's stages only make Pending Pods
        // ready, so the patch stays until it is undone. Everything after the patch is the real controllers.
        const [pod] = await podsOf(ns.name, "example-foo");
        await setPodReady(ns.name, pod.metadata.name, "False");
        const degraded = await eventually(async () => {
          const f = await getJson(["get", "foo", "example-foo", "-n", ns.name]);
          return f?.status?.availableReplicas === 2 ? f : undefined;
        }, { timeoutMs: 60_000, message: "the Foo never reported 2 available replicas" });
        assert.equal(ready(degraded).status, "False");
        assert.equal(ready(degraded).reason, "Progressing");
        await setPodReady(ns.name, pod.metadata.name, "True");
        await fooAvailable(ns.name, "example-foo", 3);
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
        // Ready's own value depends on how far the Deployment has scaled down by then; the types are what counts.
        const conditions = (foo.status.conditions as Json[]).map((c) => c.type).sort();
        assert.deepEqual(conditions, ["Other", "Ready"]);
        const ownersOf = (type: string) =>
          (foo.metadata.managedFields as Json[])
            .filter((m) => m.fieldsV1?.["f:status"]?.["f:conditions"]?.[`k:{"type":"${type}"}`])
            .map((m) => m.manager);
        assert.deepEqual(ownersOf("Other"), ["other-manager"]);
        assert.deepEqual(ownersOf("Ready"), ["kubeloop-sample-controller"]);
        // Back to 3 replicas for the steps below.
        await scaleFoo(ns.name, 3);
        await fooAvailable(ns.name, "example-foo", 3);
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
        assert.equal(dep.metadata.generation, before.metadata.generation); // spec untouched; its status is live
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
      // The cascade goes on through the ReplicaSets to the simulated Pods.
      await eventually(async () => {
        const left = [];
        for (const foo of ["example-foo", "renamed"]) left.push(...await podsOf(ns.name, foo));
        const sets = await getJson([
          "get",
          "replicasets",
          "-n",
          ns.name,
          "-l",
          "controller in (example-foo,renamed)",
        ]);
        return left.length === 0 && sets?.items.length === 0 ? true : undefined;
      }, { timeoutMs: 60_000, intervalMs: 500, message: "ReplicaSets or Pods outlived their Foo" });
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
