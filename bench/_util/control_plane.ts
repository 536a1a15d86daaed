/**
 * The local control plane for benches: etcd (inside the testenv process) and kube-apiserver from
 * tests/testenv, started without kube-controller-manager so nothing else loads the two cores. It stops
 * when disposed, or when this process exits (testenv watches its stdin).
 */
import { startTestEnvProcess } from "../../tests/_util/testenv_process.ts";
import { childrenNamed } from "./proc_stats.ts";

/** A running control plane. */
export interface ControlPlane extends AsyncDisposable {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** Admin kubeconfig path. */
  readonly kubeconfig: string;
  /** State directory (ca.crt, ...). */
  readonly dir: string;
  /** kubectl of the built Kubernetes version. */
  readonly kubectl: string;
  /** The kube-apiserver process, for CPU readings. */
  readonly apiserverPid: number;
  /** The testenv process, which runs etcd in-process. */
  readonly etcdPid: number;
  /** Runs kubectl with the admin kubeconfig; throws with its stderr on failure. */
  kubectlOk(args: readonly string[], stdin?: string): Promise<string>;
}

/**
 * Builds (or reuses) and starts the control plane: kube-apiserver and etcd only, no controller-manager,
 * scheduler or simulated nodes, so nothing but the measured program loads the two cores.
 */
export async function startControlPlane(): Promise<ControlPlane> {
  const { env: info, child } = await startTestEnvProcess(["-controller-manager=false", "-workloads=false"]);
  const [apiserverPid] = childrenNamed(child.pid, "kube-apiserver");
  if (apiserverPid === undefined) throw new Error("kube-apiserver is not a child of testenv");
  const kubectl = info.kubectl;
  const stdin = child.stdin.getWriter();
  return {
    ...info,
    kubectl,
    apiserverPid,
    etcdPid: child.pid,
    async kubectlOk(args, input) {
      const cmd = new Deno.Command(kubectl, {
        args: [`--kubeconfig=${info.kubeconfig}`, ...args],
        stdin: input === undefined ? "null" : "piped",
        stdout: "piped",
        stderr: "piped",
        env: { KUBECONFIG: "" },
      }).spawn();
      if (input !== undefined) {
        const w = cmd.stdin.getWriter();
        await w.write(new TextEncoder().encode(input));
        await w.close();
      }
      const out = await cmd.output();
      const dec = new TextDecoder();
      if (!out.success) throw new Error(`kubectl ${args.join(" ")} failed: ${dec.decode(out.stderr)}`);
      return dec.decode(out.stdout);
    },
    async [Symbol.asyncDispose]() {
      await stdin.close().catch(() => {});
      await child.status;
    },
  };
}
