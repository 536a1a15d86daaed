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

/** Applies crds/ and the namespace, service account and RBAC of manifests/, and waits for the CRD. */
export async function installSampleControllerPrerequisites(): Promise<void> {
  await installFooCrd();
  for (const file of ["namespace.yaml", "service_account.yaml", "rbac.yaml"]) {
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
