import { captureOutput } from "../_util/captured_output.ts";
import { kubectlOk, testEnv } from "../_util/testenv.ts";

/** Every state of the Foos in one namespace, in the order the server's watch delivered them. */
export interface FooWatch extends AsyncDisposable {
  /** `"<availableReplicas> <Ready status> <Ready reason>"` per write of Foo `name` so far ("-" for unset). */
  states(name: string): string[];
}

interface FooEvent {
  object?: {
    metadata?: { name?: string };
    status?: { availableReplicas?: number; conditions?: { type: string; status: string; reason?: string }[] };
  };
}

/** The lines of `text` that have ended. */
function complete(text: string): string[] {
  return text.slice(0, text.lastIndexOf("\n") + 1).split("\n");
}

/**
 * Watches the Foos of `namespace` from the current resourceVersion with `kubectl get --raw`, so every
 * write from now on is seen, including a short-lived one (Ready=False before the first Pod is up) that
 * polling could miss.
 */
export async function watchFoos(namespace: string): Promise<FooWatch> {
  const rv = (await kubectlOk(["get", "foos", "-n", namespace, "-o", "jsonpath={.metadata.resourceVersion}"]))
    .trim();
  const path =
    `/apis/samplecontroller.k8s.io/v1alpha1/namespaces/${namespace}/foos?watch=true&resourceVersion=${rv}`;
  const child = new Deno.Command(testEnv.kubectl, {
    args: [`--kubeconfig=${testEnv.kubeconfig}`, "get", "--raw", path],
    env: { KUBECONFIG: "" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = captureOutput(child);
  return {
    states: (name) =>
      complete(output.text()).filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as FooEvent)
        .filter((e) => e.object?.metadata?.name === name)
        .map(({ object }) => {
          const ready = object?.status?.conditions?.find((c) => c.type === "Ready");
          return [object?.status?.availableReplicas ?? "-", ready?.status ?? "-", ready?.reason ?? "-"].join(
            " ",
          );
        }),
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await output.done;
    },
  };
}
