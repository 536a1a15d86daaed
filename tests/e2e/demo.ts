/**
 * `deno task demo`: starts the local control plane (real control plane, simulated nodes), applies crds/, runs the
 * controller against it, applies upstream's example Foo, waits until it is Ready with its Pod running, scales it
 * to 3, then shows the state every few seconds until Ctrl-C.
 * @module
 */
import { join } from "node:path";
// Not ./controller_process.ts: importing that would start the tests' shared control plane as well.
import { startTaskFlags } from "../_util/start_task.ts";

const root = new URL("../../", import.meta.url).pathname;

/** The demo's narration goes to stdout; it is a user-facing script, not library code. */
function say(text: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
}

async function firstLine(stream: ReadableStream<Uint8Array>, prefix: string): Promise<string> {
  let buffered = "";
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the control plane exited before it was ready");
    buffered += value;
    const line = buffered.split("\n").find((l) => l.startsWith(prefix));
    if (line) {
      reader.releaseLock();
      return line.slice(prefix.length).trim();
    }
  }
}

/**
 * The control plane's binaries: built from Go modules on the first run (progress on stderr), cached after.
 * Its kubectl is the machine's when that is 1.30 or newer, else one built from the same release.
 */
async function controlPlaneBin(): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: [join(root, "tests/testenv/build.sh")],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const bin = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1);
  if (!out.success || !bin) throw new Error(`tests/testenv/build.sh failed (exit ${out.code})`);
  return bin;
}

async function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(kubectlPath, {
    args: [`--kubeconfig=${kubeconfig}`, ...args],
    stderr: "piped",
  })
    .output();
  const text = new TextDecoder().decode(out.success ? out.stdout : out.stderr);
  if (!out.success) throw new Error(`kubectl ${args.join(" ")}: ${text}`);
  return text;
}

/** Polls `kubectl get` until `done` accepts its output (or gives up after `timeoutMs`); returns the last output. */
async function waitFor(
  kubeconfig: string,
  args: string[],
  done: (out: string) => boolean,
  timeoutMs = 90_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let out = "";
  while (Date.now() < deadline && !stop.signal.aborted) {
    out = await kubectl(kubeconfig, ...args).catch((e) => String(e));
    if (done(out)) return out;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return out;
}

/** The READY and AVAILABLE columns of the example Foo's row in `kubectl get foo`. */
function fooRow(out: string): { available: string; ready: string } | undefined {
  const cells = out.split("\n").find((l) => l.startsWith("example-foo "))?.trim().split(/\s+/);
  return cells && cells.length >= 6 ? { available: cells[3] ?? "", ready: cells[4] ?? "" } : undefined;
}

const stop = new AbortController();
Deno.addSignalListener("SIGINT", () => stop.abort());

say("Starting the local control plane (the first run builds it from Go sources: several minutes)...");
const bin = Deno.env.get("KUBELOOP_TESTENV_BIN") ?? await controlPlaneBin();
const kubectlPath = Deno.env.get("KUBECTL") ?? join(bin, "kubectl");
const plane = new Deno.Command("bash", {
  args: [join(root, "tests/testenv/testenv.sh")],
  env: { KUBELOOP_TESTENV_BIN: bin },
  stdout: "piped",
}).spawn();
const kubeconfig = await firstLine(plane.stdout, "KUBECONFIG=");
const version = JSON.parse(await kubectl(kubeconfig, "version", "-o", "json")).serverVersion?.gitVersion ??
  "?";
say(`Control plane ready. Try it yourself in another terminal:  export KUBECONFIG=${kubeconfig}`);
say(`
What is real and what is simulated:
  REAL (Kubernetes ${version}, built from Go modules): etcd, kube-apiserver, kube-scheduler and
    kube-controller-manager (garbage collector, namespace, service account, deployment and replicaset
    controllers), plus this project's controller. Every object below is stored and served by them.
  SIMULATED (KWOK): the nodes and what their kubelets would do. KWOK marks the nodes Ready and moves each
    scheduled Pod to Running and Ready; no container runs and no image is pulled.`);

say("\n$ kubectl get nodes   (simulated by KWOK)");
say(await kubectl(kubeconfig, "get", "nodes"));

say("$ kubectl apply -f crds/");
say(await kubectl(kubeconfig, "apply", "-f", join(root, "crds")));
await kubectl(kubeconfig, "wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io");

say("Starting the controller (deno task start, text logs on stderr)...");
const controller = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    ...await startTaskFlags(),
    join(root, "main.ts"),
    `--kubeconfig=${kubeconfig}`,
    "--log-format=text",
    "--metrics-bind-address=127.0.0.1:8443",
    "--health-probe-bind-address=127.0.0.1:8081",
  ],
}).spawn();

say("\n$ kubectl apply -f manifests/example-foo.yaml");
say(await kubectl(kubeconfig, "apply", "-n", "default", "-f", join(root, "manifests/example-foo.yaml")));

say(
  "Waiting for the loop to close: Foo -> Deployment -> ReplicaSet -> Pod (scheduled, Running, Ready) -> Foo Ready...",
);
const readyOut = await waitFor(kubeconfig, ["get", "foo", "example-foo", "-n", "default"], (out) => {
  const row = fooRow(out);
  return row?.ready === "True" && row.available === "1";
});
say("\n$ kubectl get foo example-foo");
say(readyOut);
say("$ kubectl get deployments,replicasets,pods -n default -o wide");
say(await kubectl(kubeconfig, "get", "deployments,replicasets,pods", "-n", "default", "-o", "wide"));

say("$ kubectl describe foo example-foo");
say(await kubectl(kubeconfig, "describe", "foo", "example-foo", "-n", "default").catch((e) => String(e)));

if (!stop.signal.aborted) {
  say(`$ kubectl patch foo example-foo --type=merge -p '{"spec":{"replicas":3}}'`);
  say(
    await kubectl(
      kubeconfig,
      "patch",
      "foo",
      "example-foo",
      "-n",
      "default",
      "--type=merge",
      "-p",
      '{"spec":{"replicas":3}}',
    ),
  );
  const scaled = await waitFor(kubeconfig, ["get", "foo", "example-foo", "-n", "default"], (out) => {
    const row = fooRow(out);
    return row?.ready === "True" && row.available === "3";
  });
  say("$ kubectl get foo example-foo");
  say(scaled);
  say("$ kubectl get pods -n default -o wide   (three simulated Pods, spread over the simulated nodes)");
  say(await kubectl(kubeconfig, "get", "pods", "-n", "default", "-o", "wide"));
}

/** `kubectl get` output without its AGE cells, to tell a real change from time passing. */
function withoutAges(out: string): string {
  return out.replace(/\s\d+[smhd](\d+[smhd])?(?=\s|$)/g, "");
}

// Ctrl-C reaches the control plane too (same process group), so nothing may query it after that.
say("\nWatching (every 5 s; printed when something changes). Try kubectl yourself; Ctrl-C stops everything.");
let shown = "";
while (!stop.signal.aborted) {
  const out = await kubectl(kubeconfig, "get", "foos,deployments,pods", "-n", "default").catch((e) =>
    String(e)
  );
  if (withoutAges(out) !== withoutAges(shown)) {
    say("\n$ kubectl get foos,deployments,pods -n default");
    say(out);
    shown = out;
  }
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, 5000);
    stop.signal.addEventListener("abort", () => resolve(clearTimeout(timer)), { once: true });
  });
}

say("Stopping the controller and the control plane...");
for (const child of [controller, plane]) {
  try {
    child.kill("SIGTERM");
  } catch { /* it already exited */ }
  await child.status;
}
