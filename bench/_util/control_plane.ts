/**
 * The local control plane for benches: etcd (inside the testenv process) and kube-apiserver from
 * tests/testenv, started without kube-controller-manager so nothing else loads the two cores. It stops
 * when disposed, or when this process exits (testenv watches its stdin).
 */
import { join } from "node:path";
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

const repo = new URL("../../", import.meta.url).pathname;

async function binDir(): Promise<string> {
  const fromEnv = Deno.env.get("KUBELOOP_TESTENV_BIN");
  if (fromEnv) return fromEnv;
  const out = await new Deno.Command("bash", {
    args: [join(repo, "tests/testenv/build.sh")],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const bin = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1);
  if (!out.success || !bin) throw new Error("tests/testenv/build.sh failed");
  return bin;
}

/** Builds (or reuses) and starts the control plane. */
export async function startControlPlane(): Promise<ControlPlane> {
  const bin = await binDir();
  const child = new Deno.Command(join(bin, "testenv"), {
    args: [
      "-print=json",
      "-exit-on-stdin-eof",
      "-controller-manager=false",
      "-log-file=/dev/null",
      `-bin=${bin}`,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
  }
  void reader.cancel();
  const line = buffered.split("\n")[0]?.trim() ?? "";
  if (!line.startsWith("{")) {
    throw new Error(
      `The control plane did not start:\n${(await new Response(child.stderr).text()).slice(-4000)}`,
    );
  }
  void child.stderr.cancel();
  const info = JSON.parse(line) as { server: string; kubeconfig: string; dir: string };
  const [apiserverPid] = childrenNamed(child.pid, "kube-apiserver");
  if (apiserverPid === undefined) throw new Error("kube-apiserver is not a child of testenv");
  const kubectl = join(bin, "kubectl");
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
