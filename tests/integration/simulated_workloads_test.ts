// Workloads come alive on the local control plane: the real kube-scheduler and kube-controller-manager's
// deployment and replicaset controllers, on Nodes and kubelets simulated by KWOK. Everything here goes
// through kubectl, independent of kubeloop's code.
import assert from "node:assert/strict";
import { createNamespace, eventually, kubectl, kubectlOk } from "../_util/testenv.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function getJson(args: string[]): Promise<Json | undefined> {
  const r = await kubectl([...args, "-o", "json"]);
  return r.code === 0 ? JSON.parse(r.stdout) : undefined;
}

function conditionStatus(object: Json, type: string): string | undefined {
  return object?.status?.conditions?.find((c: Json) => c.type === type)?.status;
}

Deno.test("the simulated nodes are registered, marked for KWOK and Ready", async () => {
  const nodes = await getJson(["get", "nodes", "-l", "type=kwok"]);
  const names = (nodes.items as Json[]).map((n) => n.metadata.name).sort();
  assert.deepEqual(names, ["kwok-node-0", "kwok-node-1", "kwok-node-2"]);
  for (const node of nodes.items as Json[]) {
    assert.equal(node.metadata.annotations["kwok.x-k8s.io/node"], "fake");
    assert.equal(conditionStatus(node, "Ready"), "True");
    assert.deepEqual(node.spec.taints ?? [], [], "no not-ready taint keeps Pods away");
    assert.match(node.status.nodeInfo.kubeletVersion, /^kwok-/, "no real kubelet");
  }
});

Deno.test("kube-scheduler binds a bare Pod to a simulated node, where KWOK runs it and makes it Ready", async () => {
  await using ns = await createNamespace("sim-pod");
  await kubectlOk([
    "run",
    "solo",
    "-n",
    ns.name,
    "--image=registry.invalid/never-pulled:1",
    "--restart=Never",
  ]);
  const pod = await eventually(async () => {
    const p = await getJson(["get", "pod", "solo", "-n", ns.name]);
    return p?.status?.phase === "Running" && conditionStatus(p, "Ready") === "True" ? p : undefined;
  }, { timeoutMs: 60_000, message: "the Pod never ran" });
  assert.match(pod.spec.nodeName, /^kwok-node-\d$/);
  assert.equal(conditionStatus(pod, "PodScheduled"), "True");
  assert.match(pod.status.podIP, /^10\.244\./);
  assert.equal(pod.status.containerStatuses[0].ready, true);
  const events = await kubectlOk([
    "get",
    "events",
    "-n",
    ns.name,
    "--field-selector=involvedObject.name=solo",
  ]);
  assert.match(events, /Scheduled/, "the scheduler recorded its binding");

  // A graceful delete completes without a kubelet: KWOK's delete stage removes the Pod.
  await kubectlOk(["delete", "pod", "solo", "-n", ns.name, "--wait=true", "--timeout=60s"]);
});

Deno.test("a Deployment reaches its available replicas through real ReplicaSets and simulated Pods", async () => {
  await using ns = await createNamespace("sim-deploy");
  await kubectlOk([
    "create",
    "deployment",
    "web",
    "-n",
    ns.name,
    "--image=registry.invalid/web:1",
    "--replicas=2",
  ]);
  const dep = await eventually(async () => {
    const d = await getJson(["get", "deployment", "web", "-n", ns.name]);
    return d?.status?.availableReplicas === 2 ? d : undefined;
  }, { timeoutMs: 60_000, message: "the Deployment never had 2 available replicas" });
  assert.equal(conditionStatus(dep, "Available"), "True");
  const sets = await getJson(["get", "replicasets", "-n", ns.name]);
  assert.equal(sets.items.length, 1);
  assert.equal(sets.items[0].metadata.ownerReferences[0].name, "web");
  assert.equal(sets.items[0].status.readyReplicas, 2);

  await kubectlOk(["scale", "deployment", "web", "-n", ns.name, "--replicas=0"]);
  await eventually(async () => {
    const pods = await getJson(["get", "pods", "-n", ns.name, "-l", "app=web"]);
    return pods?.items.length === 0 ? true : undefined;
  }, { timeoutMs: 60_000, message: "scaled-down Pods were not removed" });
});
