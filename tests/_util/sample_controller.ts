/** Installing the reference controller's CRD and RBAC on the test control plane (integration and e2e tests). */
import { join } from "node:path";
import { kubectlOk } from "./testenv.ts";

const root = new URL("../../", import.meta.url).pathname;

/** Applies the Foo CRD from crds/ and waits until the server serves it. */
export async function installFooCrd(): Promise<void> {
  await kubectlOk(["apply", "-f", join(root, "crds", "samplecontroller.k8s.io_foos.yaml")]);
  await kubectlOk([
    "wait",
    "--for=condition=Established",
    "crd/foos.samplecontroller.k8s.io",
    "--timeout=30s",
  ]);
}

/** Applies crds/ and the namespace, service account and RBAC (metrics too) of manifests/; waits for the CRD. */
export async function installSampleControllerPrerequisites(): Promise<void> {
  await installFooCrd();
  for (const file of ["namespace.yaml", "service_account.yaml", "rbac.yaml", "metrics_rbac.yaml"]) {
    await kubectlOk(["apply", "-f", join(root, "manifests", file)]);
  }
}

/** Creates a Foo with `kubectl apply`. */
export async function applyFoo(namespace: string, name: string): Promise<void> {
  const foo = {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: { name, namespace },
    spec: { deploymentName: name, replicas: 1 },
  };
  await kubectlOk(["apply", "-f", "-"], { stdin: JSON.stringify(foo) });
}

/**
 * A token of a test ServiceAccount in kubeloop-system: "reader" is bound to the shipped
 * kubeloop-sample-controller-metrics-reader ClusterRole (may scrape /metrics), "intruder" is bound to nothing.
 * Both are created on first use (idempotent applies), so installSampleControllerPrerequisites must run first.
 */
export async function metricsScraperToken(kind: "reader" | "intruder"): Promise<string> {
  const name = `kubeloop-test-metrics-${kind}`;
  const objects: unknown[] = [{
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name, namespace: "kubeloop-system" },
  }];
  if (kind === "reader") {
    objects.push({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "kubeloop-sample-controller-metrics-reader",
      },
      subjects: [{ kind: "ServiceAccount", name, namespace: "kubeloop-system" }],
    });
  }
  await kubectlOk(["apply", "-f", "-"], {
    stdin: JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
  });
  return (await kubectlOk(["create", "token", name, "-n", "kubeloop-system", "--duration=1h"])).trim();
}
