/**
 * `deno task demo`: starts the local control plane, applies crds/, runs the controller against it, applies
 * upstream's example Foo and shows what happened every few seconds until Ctrl-C.
 * @module
 */
import { join } from "node:path";
import { startTaskFlags } from "./controller_process.ts";

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

async function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.env.get("KUBECTL") ?? "kubectl", {
    args: [`--kubeconfig=${kubeconfig}`, ...args],
    stderr: "piped",
  })
    .output();
  const text = new TextDecoder().decode(out.success ? out.stdout : out.stderr);
  if (!out.success) throw new Error(`kubectl ${args.join(" ")}: ${text}`);
  return text;
}

const stop = new AbortController();
Deno.addSignalListener("SIGINT", () => stop.abort());

say("Starting the local control plane (the first run builds it from Go sources: several minutes)...");
const plane = new Deno.Command("bash", { args: [join(root, "tests/testenv/testenv.sh")], stdout: "piped" })
  .spawn();
const kubeconfig = await firstLine(plane.stdout, "KUBECONFIG=");
say(`Control plane ready. Try it yourself in another terminal:  export KUBECONFIG=${kubeconfig}`);

say("\n$ kubectl apply -f crds/");
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
    "--metrics-bind-address=127.0.0.1:8080",
    "--health-probe-bind-address=127.0.0.1:8081",
  ],
}).spawn();

say("\n$ kubectl apply -f manifests/example-foo.yaml");
say(await kubectl(kubeconfig, "apply", "-n", "default", "-f", join(root, "manifests/example-foo.yaml")));

// Let the first sync happen, then show the whole story once: the Deployment, the status and the events.
await new Promise((resolve) => setTimeout(resolve, 3000));
say("\n$ kubectl describe foo example-foo");
say(await kubectl(kubeconfig, "describe", "foo", "example-foo", "-n", "default").catch((e) => String(e)));

// Ctrl-C reaches the control plane too (same process group), so nothing may query it after that.
while (!stop.signal.aborted) {
  say("\n$ kubectl get foos,deployments -n default   (Ctrl-C to stop)");
  say(await kubectl(kubeconfig, "get", "foos,deployments", "-n", "default").catch((e) => String(e)));
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
