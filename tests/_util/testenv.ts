/**
 * One real control plane (etcd + kube-apiserver + kube-controller-manager + kube-scheduler, with nodes and
 * Pods simulated by KWOK) per test run, shared by
 * every integration and end-to-end test that imports this module. Tests isolate themselves with a
 * fresh namespace each (`createNamespace`).
 *
 * `deno task test` (tests/run.sh) starts one control plane for all test files and names its ready line
 * in $KUBELOOP_TESTENV_ATTACH; this module then attaches to it. Otherwise (`deno test <file>` alone)
 * the control plane starts when this module is first imported (top-level await, so no test owns its
 * process and the sanitizers stay on), and stops when the test process exits, even after failures:
 * testenv watches its stdin and shuts everything down when the pipe closes.
 */
import { join } from "node:path";
import { startTestEnvProcess, type TestEnv } from "./testenv_process.ts";
import { newLogPath, registerControlPlaneKeys, registerSecret } from "./test_logs.ts";

export type { OwnedTestEnv, TestEnv } from "./testenv_process.ts";
export { startOwnedTestEnv } from "./testenv_process.ts";

/** The ready line of a control plane that tests/run.sh started for the whole run. */
async function attach(path: string): Promise<TestEnv> {
  const binDir = Deno.env.get("KUBELOOP_TESTENV_BIN");
  if (!binDir) throw new Error("KUBELOOP_TESTENV_ATTACH is set, KUBELOOP_TESTENV_BIN is not");
  const text = await Deno.readTextFile(path).catch((error) => {
    throw new Error(`Cannot read the shared control plane's ready line "${path}"`, { cause: error });
  });
  const info = JSON.parse(text) as { server: string; kubeconfig: string; dir: string; control: string };
  return { ...info, binDir, kubectl: join(binDir, "kubectl") };
}

async function startShared(): Promise<TestEnv> {
  const shared = Deno.env.get("KUBELOOP_TESTENV_ATTACH");
  if (shared) return await attach(shared);
  // With log collection on (see test_logs.ts) the state directory, component logs included, is kept there.
  const kept = newLogPath("testenv")?.replace(/\.log$/, "");
  const placement = kept ? [`-dir=${kept}`, `-log-file=${join(kept, "testenv.log")}`] : [];
  const { env, child } = await startTestEnvProcess(placement);
  // The process must not keep the test runner alive; closing our end of stdin at exit stops it.
  child.unref();
  await registerControlPlaneKeys(env.dir);
  return env;
}

/** The shared control plane of this test run. */
export const testEnv: TestEnv = await startShared();

/** Output of a finished command. */
export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl against the test control plane (admin kubeconfig unless args override it). */
export async function kubectl(
  args: readonly string[],
  options: { stdin?: string; kubeconfig?: string } = {},
): Promise<CommandResult> {
  const cmd = new Deno.Command(testEnv.kubectl, {
    args: [`--kubeconfig=${options.kubeconfig ?? testEnv.kubeconfig}`, ...args],
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { KUBECONFIG: "" },
  });
  const child = cmd.spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  const result = { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  if (result.code === 0 && args[0] === "create" && args[1] === "token") {
    registerSecret(result.stdout.trim(), `TokenRequest token (kubectl ${args.slice(2).join(" ")})`);
  }
  return result;
}

/** Like `kubectl`, but throws with kubectl's stderr when it exits non-zero. */
export async function kubectlOk(
  args: readonly string[],
  options: { stdin?: string; kubeconfig?: string } = {},
): Promise<string> {
  const r = await kubectl(args, options);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** A namespace that is deleted when disposed (`await using ns = await createNamespace("x")`). */
export interface TestNamespace extends AsyncDisposable {
  readonly name: string;
}

/** Creates a uniquely named namespace for one test. */
export async function createNamespace(prefix = "test"): Promise<TestNamespace> {
  const safe = prefix.toLowerCase().replace(/[^a-z0-9-]/g, "-").slice(0, 40).replace(/-+$/, "");
  const name = `${safe}-${crypto.randomUUID().slice(0, 8)}`;
  await kubectlOk(["create", "namespace", name]);
  return {
    name,
    async [Symbol.asyncDispose]() {
      await kubectl(["delete", "namespace", name, "--wait=false", "--ignore-not-found"]);
    },
  };
}

/** Compacts etcd at its current revision (for 410 Gone tests); returns that revision. */
export async function compactEtcd(): Promise<number> {
  const res = await fetch(`${testEnv.control}/compact`, { method: "POST" });
  if (!res.ok) throw new Error(`compact failed: ${res.status} ${await res.text()}`);
  const body = await res.json() as { revision: number };
  return body.revision;
}

/** Key formats a minted client certificate can use. */
export type KeyType = "rsa-pkcs1" | "rsa-pkcs8" | "ec-sec1" | "ec-pkcs8";

/** Mints a client certificate signed by the test CA (or an untrusted one), returning PEM strings. */
export async function mintClientCert(options: {
  cn: string;
  groups?: string[];
  keyType?: KeyType;
  expired?: boolean;
  untrusted?: boolean;
}): Promise<{ cert: string; key: string }> {
  const res = await fetch(`${testEnv.control}/mint`, {
    method: "POST",
    body: JSON.stringify({
      cn: options.cn,
      groups: options.groups ?? [],
      keyType: options.keyType ?? "ec-pkcs8",
      expired: options.expired ?? false,
      untrusted: options.untrusted ?? false,
    }),
  });
  if (!res.ok) throw new Error(`mint failed: ${res.status} ${await res.text()}`);
  const minted = await res.json() as { cert: string; key: string };
  registerSecret(minted.key, `minted client key (cn ${options.cn})`);
  return minted;
}

/** Reads the test CA certificate (PEM). */
export function caCert(): Promise<string> {
  return Deno.readTextFile(join(testEnv.dir, "ca.crt"));
}

/**
 * Polls `fn` until it returns a value other than undefined, or fails after `timeoutMs`. A `message`
 * function is called only then, so output it quotes is what there was at the timeout, not at the call.
 */
export async function eventually<T>(
  fn: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs?: number; intervalMs?: number; message?: string | (() => string) } = {},
): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  const message = typeof options.message === "function" ? options.message() : options.message;
  throw new Error(`${message ?? "condition not met"} within ${timeoutMs} ms`, { cause: lastError });
}
