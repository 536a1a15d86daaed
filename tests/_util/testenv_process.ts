/**
 * Starting testenv processes (the local control plane), without side effects on import: the shared control
 * plane of the test suite lives in testenv.ts; benches and tests that need one of their own use
 * {@linkcode startOwnedTestEnv}.
 * @module
 */
import { join } from "node:path";

/** Where the running control plane is. */
export interface TestEnv {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** Admin kubeconfig (client certificate in group system:masters), with *-data fields. */
  readonly kubeconfig: string;
  /** State directory: ca.crt, ca.key, admin.crt/.key, component logs. */
  readonly dir: string;
  /** Test-only control endpoint: POST /compact, POST /mint. */
  readonly control: string;
  /** Directory with kube-apiserver, kube-controller-manager, kube-scheduler, kwok, kubectl, testenv. */
  readonly binDir: string;
  /** The kubectl to use (>= 1.30). */
  readonly kubectl: string;
}

async function buildOrFind(): Promise<string> {
  const fromEnv = Deno.env.get("KUBELOOP_TESTENV_BIN");
  if (fromEnv) return fromEnv;
  const script = new URL("../testenv/build.sh", import.meta.url).pathname;
  // Progress (what is built, elapsed time, where the cache lives) goes straight to our stderr.
  const out = await new Deno.Command("bash", { args: [script], stdout: "piped", stderr: "inherit" }).output();
  if (!out.success) {
    throw new Error(`Cannot build the local control plane: bash ${script} exited ${out.code}`);
  }
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  const bin = lines.at(-1);
  if (!bin) throw new Error("tests/testenv/build.sh printed no binary directory");
  return bin;
}

/** Starts testenv with `args` on top of the defaults and resolves once it printed its ready line. */
export async function startTestEnvProcess(
  args: readonly string[] = [],
): Promise<{ env: TestEnv; child: Deno.ChildProcess }> {
  const binDir = await buildOrFind();
  const child = new Deno.Command(join(binDir, "testenv"), {
    args: ["-print=json", "-exit-on-stdin-eof", "-log-file=/dev/null", `-bin=${binDir}`, ...args],
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
  reader.releaseLock();
  const line = buffered.split("\n")[0]?.trim() ?? "";
  if (!line.startsWith("{")) {
    const err = await new Response(child.stderr).text();
    throw new Error(`The local control plane did not start:\n${err.slice(-4000)}`);
  }
  await child.stderr.cancel();
  const info = JSON.parse(line) as { server: string; kubeconfig: string; dir: string; control: string };
  return { env: { ...info, binDir, kubectl: join(binDir, "kubectl") }, child };
}

/** A second control plane owned by one test; disposing it stops it and removes its state. */
export interface OwnedTestEnv extends TestEnv, AsyncDisposable {}

/**
 * Starts another control plane with extra testenv flags, for a test that needs a differently configured
 * server, e.g. `["-workloads=false", "-controller-manager=false", "-apiserver-arg=--feature-gates=WatchList=false"]`.
 */
export async function startOwnedTestEnv(args: readonly string[]): Promise<OwnedTestEnv> {
  const { env, child } = await startTestEnvProcess(args);
  return {
    ...env,
    async [Symbol.asyncDispose]() {
      // testenv stops everything when its stdin closes (-exit-on-stdin-eof).
      await child.stdin.close().catch(() => {});
      await child.status;
    },
  };
}
