/**
 * One real control plane (etcd + kube-apiserver + kube-controller-manager) per test run, shared by
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
  /** Directory with kube-apiserver, kube-controller-manager, kubectl, testenv. */
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

async function start(): Promise<TestEnv> {
  const shared = Deno.env.get("KUBELOOP_TESTENV_ATTACH");
  if (shared) return await attach(shared);
  const binDir = await buildOrFind();
  const child = new Deno.Command(join(binDir, "testenv"), {
    args: ["-print=json", "-exit-on-stdin-eof", "-log-file=/dev/null", `-bin=${binDir}`],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // The process must not keep the test runner alive; closing our end of stdin at exit stops it.
  child.unref();
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
  return { ...info, binDir, kubectl: join(binDir, "kubectl") };
}

/** The shared control plane of this test run. */
export const testEnv: TestEnv = await start();

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
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
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
  return await res.json() as { cert: string; key: string };
}

/** Reads the test CA certificate (PEM). */
export function caCert(): Promise<string> {
  return Deno.readTextFile(join(testEnv.dir, "ca.crt"));
}

/** Polls `fn` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  fn: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
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
  throw new Error(`${options.message ?? "condition not met"} within ${timeoutMs} ms`, { cause: lastError });
}
