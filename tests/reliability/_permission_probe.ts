/**
 * Preloaded into the controller process (`deno run <task flags> --preload=<this file> main.ts`), so
 * it runs with exactly the controller's permissions and tries what an attacker running code in the
 * controller would try. One JSON line per attempt on stderr:
 * `{"probe": "<what>", "kind": "write"|"run"|"env"|"read"|"net"|"sys"|"ffi", "outcome", "error"?}`.
 * Outcomes: "denied" (Deno refused it for lack of permission: NotCapable), "hidden" (the call
 * succeeded but the secret variable was not in its answer), "allowed", or "failed" (allowed, and
 * failed for another reason). Nothing it does is harmful when allowed.
 * @module
 */
import { execSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import process from "node:process";

type Kind = "write" | "run" | "env" | "read" | "net" | "sys" | "ffi";

const encoder = new TextEncoder();
function report(probe: string, kind: Kind, outcome: string, error?: unknown): void {
  const line = JSON.stringify({
    probe,
    kind,
    outcome,
    ...(error === undefined ? {} : { error: String(error).slice(0, 160) }),
  });
  Deno.stderr.writeSync(encoder.encode(line + "\n"));
}

/** The call succeeded but what it was after (the secret variable) was not in its answer. */
class Hidden extends Error {}

async function attempt(probe: string, kind: Kind, action: () => unknown): Promise<void> {
  try {
    await action();
    report(probe, kind, "allowed");
  } catch (error) {
    if (error instanceof Hidden) report(probe, kind, "hidden");
    else report(probe, kind, error instanceof Deno.errors.NotCapable ? "denied" : "failed", error);
  }
}

// Only variables of the allow list are read here; the others are the attacks.
const saDir = Deno.env.get("KUBELOOP_SERVICE_ACCOUNT_DIR") ?? "/var/run/secrets/kubernetes.io/serviceaccount";
const home = Deno.env.get("HOME") ?? "/root";
const mark = `kubeloop-probe-${crypto.randomUUID().slice(0, 8)}`;

await attempt(`write /tmp/${mark}`, "write", () => Deno.writeTextFile(`/tmp/${mark}`, "x"));
await attempt(
  "write in the working directory",
  "write",
  () => Deno.writeTextFile(`${Deno.cwd()}/${mark}`, "x"),
);
await attempt("write in $HOME", "write", () => Deno.writeTextFile(`${home}/${mark}`, "x"));
await attempt(
  "overwrite the service-account token",
  "write",
  () => Deno.writeTextFile(`${saDir}/token`, "x"),
);
await attempt("delete the service-account token", "write", () => Deno.remove(`${saDir}/token`));
await attempt("chmod the service-account token", "write", () => Deno.chmod(`${saDir}/token`, 0o666));
await attempt("create a temporary file", "write", () => Deno.makeTempFile());
await attempt("create a directory", "write", () => Deno.mkdir(`/tmp/${mark}-dir`));
await attempt(
  "open a file for writing",
  "write",
  () => Deno.openSync(`/tmp/${mark}-open`, { write: true, create: true }),
);
await attempt("node:fs writeFileSync", "write", () => writeFileSync(`/tmp/${mark}-node`, "x"));

await attempt("spawn /bin/sh", "run", () => new Deno.Command("/bin/sh", { args: ["-c", "true"] }).output());
await attempt("node:child_process execSync", "run", () => execSync("true"));
// A pid above any pid_max: when allowed, this fails with ESRCH and harms nobody.
await attempt("signal another process", "run", () => Deno.kill(4_194_303, "SIGCONT"));

await attempt("read a variable outside the list", "env", () => Deno.env.get("KUBELOOP_PROBE_SECRET"));
await attempt("read the whole environment", "env", () => {
  // With --ignore-env, Deno answers with the allowed variables only: hidden, not denied.
  if ("KUBELOOP_PROBE_SECRET" in Deno.env.toObject()) return;
  throw new Hidden();
});
await attempt("node:process env outside the list", "env", () => {
  if (process.env["KUBELOOP_PROBE_SECRET"] !== undefined) return;
  throw new Hidden();
});
await attempt("set a variable outside the list", "env", () => Deno.env.set("KUBELOOP_PROBE_SET", "x"));
await attempt("read /proc/self/environ", "env", () => Deno.readTextFile("/proc/self/environ"));

await attempt("read /etc/passwd", "read", () => Deno.readTextFile("/etc/passwd"));
await attempt("connect to the cloud metadata address", "net", async () => {
  const timeout = AbortSignal.timeout(2000);
  const conn = await Deno.connect({ hostname: "169.254.169.254", port: 80, signal: timeout });
  conn.close();
});
await attempt("list network interfaces", "sys", () => Deno.networkInterfaces());
await attempt("read the OS release", "sys", () => Deno.osRelease());
await attempt("hostname (allowed: leader-election identity)", "sys", () => Deno.hostname());
await attempt("load a native library", "ffi", () => Deno.dlopen("libc.so.6", {}));
