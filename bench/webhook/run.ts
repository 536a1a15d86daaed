/**
 * Admission webhook bench: kubeloop's webhook server (bench/webhook/kubeloop_webhook.ts: the reference
 * controller's Foo validation on serveWebhooks) against controller-runtime's (bench/peers/
 * controller_runtime_webhook: the same validation on webhook.NewServer), side by side in one run, in
 * interleaved rounds, each server a fresh process per measurement. Two ways in:
 *
 * - `direct`: the load generator (bench/webhook/load, Go standard library) POSTs AdmissionReviews of a Foo
 *   straight to the server, as kube-apiserver would;
 * - `apiserver`: it creates Foos through kube-apiserver with `dryRun=All` (nothing is stored, every request
 *   is admitted by the webhook), the webhook configured by `url:` with the test CA as caBundle.
 *
 * Open loop at each rate: latency counts from each request's scheduled send time. Reported per server and
 * rate (medians over rounds): p50 and p99 latency, the server's CPU over the measured window (user + sys,
 * % of one core), its RSS at the end of the window and its peak RSS; then kubeloop / controller-runtime.
 * Both servers speak HTTP/1.1 (kubebuilder's scaffold turns HTTP/2 off).
 *
 *   deno run --allow-all bench/webhook/run.ts [--rates=100,500] [--seconds=20] [--warmup=3] [--rounds=3]
 *     [--peers="kubeloop controller-runtime"] [--modes="direct apiserver"]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startControlPlane } from "../_util/control_plane.ts";
import { cpuMsBetween, cpuTime, memory } from "../_util/proc_stats.ts";
import { median, print, progress } from "../_util/stats.ts";
import { startTaskFlags } from "../../tests/_util/start_task.ts";
import { testPki } from "../../tests/webhook/_tls.ts";
import { fooValidation } from "../../lib/sample_controller/foo_webhooks.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    rates: { type: "string", default: "100,500" },
    seconds: { type: "string", default: "20" },
    warmup: { type: "string", default: "3" },
    rounds: { type: "string", default: "3" },
    peers: { type: "string", default: "kubeloop controller-runtime" },
    modes: { type: "string", default: "direct apiserver" },
  },
});
const RATES = opts.rates.split(",").map(Number);
const SECONDS = Number(opts.seconds);
const WARMUP = Number(opts.warmup);
const ROUNDS = Number(opts.rounds);
const PEERS = opts.peers.split(/\s+/).filter(Boolean);
const MODES = opts.modes.split(/\s+/).filter(Boolean) as ("direct" | "apiserver")[];
for (const peer of PEERS) {
  if (peer !== "kubeloop" && peer !== "controller-runtime") throw new Error(`Unknown peer "${peer}"`);
}
const repo = new URL("../../", import.meta.url).pathname;
const cache = Deno.env.get("KUBELOOP_BENCH_CACHE") ??
  join(Deno.env.get("HOME") ?? "/root", ".cache/kubeloop-bench");
const NS = "bench-webhook";
const PATH = fooValidation.path;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function goBuild(dir: string, output: string): Promise<string> {
  const out = join(cache, output);
  const started = performance.now();
  const r = await new Deno.Command("go", {
    args: ["build", "-trimpath", "-o", out, "."],
    cwd: join(repo, dir),
    env: { GOWORK: "off", GOTOOLCHAIN: "local", CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" },
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!r.success) throw new Error(`go build in ${dir} failed`);
  progress(`go: built ${output} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return out;
}

await Deno.mkdir(cache, { recursive: true });
const load = await goBuild("bench/webhook/load", "webhook-load");
const crBinary = PEERS.includes("controller-runtime")
  ? await goBuild("bench/peers/controller_runtime_webhook", "controller-runtime-webhook")
  : "";
const work = await Deno.makeTempDir({ prefix: "kubeloop-bench-webhook-" });
const pki = await testPki();
await Deno.writeTextFile(join(work, "ca.crt"), pki.ca);
await Deno.writeTextFile(join(work, "tls.crt"), pki.serving.cert);
await Deno.writeTextFile(join(work, "tls.key"), pki.serving.key);
const startFlags = await startTaskFlags();
const v8Flags = startFlags.filter((f) => f.startsWith("--v8-flags"));

/** A Foo as kubectl sends it, with managedFields as the API server adds them before admission. */
function fooObject(name: string): Record<string, unknown> {
  return {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: {
      name,
      namespace: NS,
      labels: { "app.kubernetes.io/name": "web", "app.kubernetes.io/part-of": "shop" },
      annotations: { "example.com/owner": "team-a" },
    },
    spec: { deploymentName: name, replicas: 3 },
  };
}

function admissionReview(): string {
  const foo = {
    ...fooObject("web"),
    metadata: {
      ...fooObject("web").metadata as object,
      uid: "5c5f6c2c-8a3e-4d4e-9d8e-0e6c0f6b7a11",
      creationTimestamp: "2026-12-03T10:00:00Z",
      generation: 1,
      managedFields: [{
        manager: "kubectl-client-side-apply",
        operation: "Update",
        apiVersion: "samplecontroller.k8s.io/v1alpha1",
        time: "2026-12-03T10:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:metadata": {
            "f:labels": { ".": {}, "f:app.kubernetes.io/name": {}, "f:app.kubernetes.io/part-of": {} },
          },
          "f:spec": { ".": {}, "f:deploymentName": {}, "f:replicas": {} },
        },
      }],
    },
  };
  const gvk = { group: "samplecontroller.k8s.io", version: "v1alpha1", kind: "Foo" };
  const gvr = { group: "samplecontroller.k8s.io", version: "v1alpha1", resource: "foos" };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "0b3e1a0e-6b8c-4f6e-a3f4-1c2d3e4f5a6b",
      kind: gvk,
      resource: gvr,
      requestKind: gvk,
      requestResource: gvr,
      name: "web",
      namespace: NS,
      operation: "CREATE",
      userInfo: { username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] },
      object: foo,
      oldObject: null,
      dryRun: false,
      options: {
        kind: "CreateOptions",
        apiVersion: "meta.k8s.io/v1",
        fieldManager: "kubectl-client-side-apply",
      },
    },
  });
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A server under test, running. */
interface Running {
  readonly pid: number;
  readonly url: string;
  stop(): Promise<void>;
}

async function startPeer(peer: string): Promise<Running> {
  const port = freePort();
  const command = peer === "kubeloop"
    ? new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--cached-only",
        "--allow-net=127.0.0.1",
        "--allow-read",
        ...v8Flags,
        join(repo, "bench/webhook/kubeloop_webhook.ts"),
        `--port=${port}`,
        `--cert-dir=${work}`,
        ...(Deno.env.get("KUBELOOP_BENCH_WEBHOOK_LOG")
          ? [`--log-level=${Deno.env.get("KUBELOOP_BENCH_WEBHOOK_LOG")}`]
          : []),
      ],
      stdout: "null",
      stderr: "inherit",
    })
    : new Deno.Command(crBinary, {
      args: [`-port=${port}`, `-cert-dir=${work}`],
      stdout: "null",
      stderr: "inherit",
    });
  const child = command.spawn();
  const url = `https://127.0.0.1:${port}`;
  for (let i = 0;; i++) {
    const up = await Deno.connectTls({ hostname: "127.0.0.1", port, caCerts: [pki.ca] })
      .then(async (c) => (await c.handshake(), c.close(), true), () => false);
    if (up) break;
    if (i > 300) throw new Error(`${peer} did not start listening`);
    await sleep(50);
  }
  return {
    pid: child.pid,
    url,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** One measurement. */
interface Sample {
  readonly p50: number;
  readonly p99: number;
  readonly cpuPct: number;
  readonly rss: number;
  readonly peakRss: number;
  readonly failed: number;
}

interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  statuses: Record<string, number>;
  failure_samples?: string[];
  p50_ms: number;
  p99_ms: number;
}

async function runLoad(args: string[], seconds: number): Promise<LoadResult> {
  const out = await new Deno.Command(load, {
    args: [...args, `-duration=${seconds}s`],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("the load generator failed");
  return JSON.parse(new TextDecoder().decode(out.stdout)) as LoadResult;
}

// ---- the API server path ------------------------------------------------------------------------------------
type ControlPlane = Awaited<ReturnType<typeof startControlPlane>>;
let plane: ControlPlane | undefined;
let apiserverArgs: string[] = [];
if (MODES.includes("apiserver")) {
  progress("starting the control plane");
  plane = await startControlPlane();
  await plane.kubectlOk(["apply", "-f", join(repo, "crds/samplecontroller.k8s.io_foos.yaml")]);
  await plane.kubectlOk(["wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io"]);
  await plane.kubectlOk(["create", "namespace", NS]);
  const field = (path: string) =>
    plane!.kubectlOk(["config", "view", "--raw", "--minify", "-o", `jsonpath={${path}}`]);
  const decode = (b64: string) =>
    new TextDecoder().decode(Uint8Array.from(atob(b64.trim()), (c) => c.charCodeAt(0)));
  await Deno.writeTextFile(
    join(work, "admin.crt"),
    decode(await field(".users[0].user.client-certificate-data")),
  );
  await Deno.writeTextFile(join(work, "admin.key"), decode(await field(".users[0].user.client-key-data")), {
    mode: 0o600,
  });
  await Deno.writeTextFile(join(work, "foo.json"), JSON.stringify(fooObject("web")));
  apiserverArgs = [
    `-url=${plane.server}/apis/samplecontroller.k8s.io/v1alpha1/namespaces/${NS}/foos?dryRun=All`,
    `-ca=${join(plane.dir, "ca.crt")}`,
    `-cert=${join(work, "admin.crt")}`,
    `-key=${join(work, "admin.key")}`,
    `-body=${join(work, "foo.json")}`,
    "-expect=201",
  ];
}

/** Points the bench's ValidatingWebhookConfiguration at `url`, named for `peer`; waits until it is in force. */
async function configure(peer: string, url: string): Promise<void> {
  const name = `foos.${peer === "kubeloop" ? "kubeloop" : "controller-runtime"}.samplecontroller.k8s.io`;
  const config = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "bench-webhook" },
    webhooks: [{
      name,
      admissionReviewVersions: ["v1"],
      clientConfig: { url: `${url}${PATH}`, caBundle: btoa(pki.ca) },
      rules: [{
        apiGroups: ["samplecontroller.k8s.io"],
        apiVersions: ["v1alpha1"],
        resources: ["foos"],
        operations: ["CREATE", "UPDATE"],
        scope: "Namespaced",
      }],
      failurePolicy: "Fail",
      sideEffects: "None",
      timeoutSeconds: 10,
      matchPolicy: "Equivalent",
      namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": NS } },
    }],
  };
  await plane!.kubectlOk(["apply", "-f", "-"], JSON.stringify(config));
  const bad = JSON.stringify({ ...fooObject("probe"), spec: { deploymentName: "Not_A_Label" } });
  for (let i = 0;; i++) {
    const r = await new Deno.Command(plane!.kubectl, {
      args: [`--kubeconfig=${plane!.kubeconfig}`, "create", "--dry-run=server", "-f", "-"],
      stdin: "piped",
      stdout: "null",
      stderr: "piped",
      env: { KUBECONFIG: "" },
    }).spawn();
    const w = r.stdin.getWriter();
    await w.write(new TextEncoder().encode(bad));
    await w.close();
    const out = await r.output();
    if (new TextDecoder().decode(out.stderr).includes(`admission webhook "${name}" denied`)) return;
    if (i > 200) throw new Error(`the webhook configuration for ${peer} never took effect`);
    await sleep(100);
  }
}

// ---- measure ---------------------------------------------------------------------------------------------
await Deno.writeTextFile(join(work, "review.json"), admissionReview());
const samples = new Map<string, Sample[]>();
const key = (mode: string, peer: string, rate: number) => `${mode}|${peer}|${rate}`;
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of MODES) {
    for (const rate of RATES) {
      for (const peer of PEERS) {
        progress(`round ${round + 1}/${ROUNDS}: ${mode}, ${rate}/s, ${peer}`);
        const server = await startPeer(peer);
        try {
          const args = mode === "direct"
            ? [
              `-url=${server.url}${PATH}`,
              `-ca=${join(work, "ca.crt")}`,
              `-body=${join(work, "review.json")}`,
              "-expect=200",
            ]
            : apiserverArgs;
          if (mode === "apiserver") await configure(peer, server.url);
          if (WARMUP > 0) await runLoad([...args, `-rate=${rate}`], WARMUP);
          const before = cpuTime(server.pid);
          const started = performance.now();
          const result = await runLoad([...args, `-rate=${rate}`], SECONDS);
          const elapsedMs = performance.now() - started;
          const cpu = cpuMsBetween(before, cpuTime(server.pid));
          const mem = memory(server.pid);
          if (result.failed > 0) {
            progress(`  ${result.failed} of ${result.sent} failed: ${JSON.stringify(result.statuses)}`);
            for (const sample of result.failure_samples ?? []) progress(`    ${sample}`);
          }
          const list = samples.get(key(mode, peer, rate)) ?? [];
          list.push({
            p50: result.p50_ms,
            p99: result.p99_ms,
            cpuPct: (cpu / elapsedMs) * 100,
            rss: mem.rss,
            peakRss: mem.peakRss,
            failed: result.failed,
          });
          samples.set(key(mode, peer, rate), list);
        } finally {
          await server.stop();
        }
      }
    }
  }
}
if (plane) await plane[Symbol.asyncDispose]();
await Deno.remove(work, { recursive: true });

// ---- report ----------------------------------------------------------------------------------------------
const f = (n: number, digits = 2) => Number.isFinite(n) ? n.toFixed(digits) : "n/a";
const m = (mode: string, peer: string, rate: number, pick: (s: Sample) => number) =>
  median((samples.get(key(mode, peer, rate)) ?? []).map(pick));
print();
print(
  `Admission latency and server cost, ${SECONDS} s per run, median of ${ROUNDS} rounds. direct: AdmissionReviews ` +
    "POSTed to the server; apiserver: Foos created through kube-apiserver with dryRun=All, each admitted by " +
    "the webhook (latency of the whole create).",
);
print();
print(
  "| server | path | rate (/s) | p50 (ms) | p99 (ms) | CPU (% core) | RSS (MB) | peak RSS (MB) | failed |",
);
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const mode of MODES) {
  for (const rate of RATES) {
    for (const peer of PEERS) {
      const failed = (samples.get(key(mode, peer, rate)) ?? []).reduce((n, s) => n + s.failed, 0);
      print(
        `| ${peer} | ${mode} | ${rate} | ${f(m(mode, peer, rate, (s) => s.p50))} | ` +
          `${f(m(mode, peer, rate, (s) => s.p99))} | ${f(m(mode, peer, rate, (s) => s.cpuPct), 1)} | ` +
          `${f(m(mode, peer, rate, (s) => s.rss) / 1e6, 1)} | ${
            f(m(mode, peer, rate, (s) => s.peakRss) / 1e6, 1)
          } | ${failed} |`,
      );
    }
  }
}
if (PEERS.length === 2) {
  print();
  print("| path | rate (/s) | p50 kubeloop / controller-runtime | p99 | CPU | RSS |");
  print("| --- | --- | --- | --- | --- | --- |");
  for (const mode of MODES) {
    for (const rate of RATES) {
      const ratio = (pick: (s: Sample) => number) =>
        f(m(mode, "kubeloop", rate, pick) / m(mode, "controller-runtime", rate, pick));
      print(
        `| ${mode} | ${rate} | ${ratio((s) => s.p50)} | ${ratio((s) => s.p99)} | ${
          ratio((s) => s.cpuPct)
        } | ` +
          `${ratio((s) => s.rss)} |`,
      );
    }
  }
}
