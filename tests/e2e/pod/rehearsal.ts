/**
 * What the pod rehearsal's tests share: the layers and credentials (built once per run), and the waits and
 * checks a kubelet, a Prometheus and a user would make against the pod. Key lines go to stderr as
 * "pod-rehearsal: ...".
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { kubectl, kubectlOk, testEnv } from "../../_util/testenv.ts";
import { installFooCrd } from "../../_util/sample_controller.ts";
import { type BaseLayer, baseLayer } from "./base_layer.ts";
import { DISTROLESS_SOURCE } from "./distroless.ts";
import { programLayer, runtimeLayer } from "./layers.ts";
import type { Pod, PodLayers, PodOptions } from "./pod.ts";
import { divergences } from "./divergences.ts";
import {
  argValue,
  bindPort,
  type PodSources,
  type PodSpec,
  podSpecFrom,
  readPodSources,
  REPO_ROOT,
} from "./pod_spec.ts";
import { metricsReaderToken, metricsSecure, scrape } from "./scrape.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Writes one transcript line. */
export function say(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`pod-rehearsal: ${line}\n`));
}

/** Everything the tests share: the pod as the repository describes it, its layers, its credentials. */
export interface Rehearsal {
  readonly sources: PodSources;
  readonly spec: PodSpec;
  readonly base: BaseLayer;
  readonly layers: PodLayers;
  readonly serviceAccount: Record<string, string>;
  options(extra?: Partial<PodOptions>): PodOptions;
}

let shared: Promise<Rehearsal> | undefined;
const cleanup: string[] = [];
globalThis.addEventListener("unload", () => {
  for (const dir of cleanup) Deno.removeSync(dir, { recursive: true });
});

/** Applies the CRD and the manifests' identity and RBAC objects (what the controller's token needs). */
async function installPrerequisites(sources: PodSources): Promise<void> {
  await installFooCrd();
  const order = ["Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"];
  const items = sources.manifests.flatMap(({ text }) => parseAllDocuments(text).map((d) => d.toJS() as Json))
    .filter((o) => order.includes(o?.kind))
    .sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  await kubectlOk(["apply", "-f", "-"], { stdin: JSON.stringify({ apiVersion: "v1", kind: "List", items }) });
}

/** The shared layers and credentials, built on first use; needs root. */
export function prepare(): Promise<Rehearsal> {
  shared ??= (async () => {
    if (Deno.uid() !== 0) {
      throw new Error("The pod rehearsal needs root (it mounts an overlay root and enters new namespaces)");
    }
    const started = performance.now();
    // The stand-in runtime is the running deno: it must be the version the Dockerfile compiles with.
    const pinned = (JSON.parse(await Deno.readTextFile(join(REPO_ROOT, ".tools/deno/package.json"))) as {
      dependencies: Record<string, string>;
    }).dependencies["deno"];
    assert.equal(Deno.version.deno, pinned, "run the rehearsal with the Deno version the project pins");
    const sources = await readPodSources();
    const spec = podSpecFrom(sources);
    assert.deepEqual(divergences(spec), [], "deno.json, the Dockerfile and manifests/ disagree");
    const base = await baseLayer(say);
    say(`base layer ${base.reused ? "reused" : "assembled"}: ${base.dir}`);
    say(`packages (ours = apt today, distroless = ${DISTROLESS_SOURCE} lock file):`);
    for (const p of base.packages) {
      const same = p.version === p.lockedVersion ? "same" : "differs";
      say(
        `  ${p.layer.padEnd(6)} ${p.name.padEnd(16)} ours ${
          p.version.padEnd(20)
        } distroless ${p.lockedVersion} (${same}${p.use === "whole" ? "" : `; ${p.use} only`})`,
      );
    }
    const runtime = await runtimeLayer(spec);
    const program = await Deno.makeTempDir({ prefix: "kubeloop-pod-program-" });
    cleanup.push(program);
    await programLayer(spec, program);
    await installPrerequisites(sources);
    const { namespace, serviceAccount } = spec.container;
    const token = (await kubectlOk(["create", "token", serviceAccount, "-n", namespace, "--duration=1h"]))
      .trim();
    const files = {
      token,
      "ca.crt": await Deno.readTextFile(join(testEnv.dir, "ca.crt")),
      namespace,
    };
    say(`layers ready in ${Math.round(performance.now() - started)} ms`);
    const layers = { base: base.dir, runtime, program };
    return {
      sources,
      spec,
      base,
      layers,
      serviceAccount: files,
      options: (extra = {}) => ({
        spec,
        layers,
        apiserver: new URL(testEnv.server),
        serviceAccount: files,
        ...extra,
      }),
    };
  })();
  return shared;
}

/** The lease the Deployment's controller elects itself with. */
export function leaseOf(spec: PodSpec): { name: string; namespace: string } {
  const args = spec.container.args;
  return {
    name: argValue(args, "leader-election-id") ?? "kubeloop-sample-controller",
    namespace: argValue(args, "leader-election-namespace") ?? spec.container.namespace,
  };
}

/** The Lease's holderIdentity; "" when it is released or missing. */
export async function leaseHolder(spec: PodSpec): Promise<string> {
  const { name, namespace } = leaseOf(spec);
  const r = await kubectl(["get", "lease", name, "-n", namespace, "-o", "json"]);
  return r.code === 0 ? (JSON.parse(r.stdout).spec?.holderIdentity ?? "") : "";
}

/** A GET's status, or undefined when it fails or takes longer than `timeoutSeconds` (as a probe would). */
export async function httpStatus(url: string, timeoutSeconds: number): Promise<number | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutSeconds * 1000) });
    await res.body?.cancel();
    return res.status;
  } catch {
    return undefined;
  }
}

/** Fields of /proc/<pid>/status. */
export async function procStatus(pid: number): Promise<Record<string, string>> {
  const text = await Deno.readTextFile(`/proc/${pid}/status`);
  return Object.fromEntries(
    text.trim().split("\n").map((l) => {
      const i = l.indexOf(":");
      return [l.slice(0, i), l.slice(i + 1).trim()];
    }),
  );
}

/** The pod's exit code, or a description when it is still running after `ms`. */
export async function exitCodeWithin(pod: Pod, ms: number): Promise<number | string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`still running after ${ms} ms`), ms);
  });
  try {
    return await Promise.race([pod.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls `fn` until it returns a value, for up to 60 s; fails at once when the pod exits first, and in both
 * cases with the pod's logs as they are then.
 */
export async function podEventually<T>(pod: Pod, what: string, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (pod.exitCode !== undefined) {
      throw new Error(`${what}: the pod exited with code ${pod.exitCode}; pod logs:\n${pod.logs()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} within 60 s; pod logs:\n${pod.logs()}`);
}

/** Waits until every probe of the Deployment answers 200, each within its timeoutSeconds. */
export async function waitReady(pod: Pod, spec: PodSpec): Promise<void> {
  const probes = spec.container.probes;
  assert.ok(probes.length > 0, "the Deployment declares probes");
  await podEventually(pod, "probes not passing", async () => {
    for (const probe of probes) {
      if (await httpStatus(pod.url(probe.port, probe.path), probe.timeoutSeconds) !== 200) return undefined;
    }
    return true;
  });
}

/** Waits until the pod holds the Lease (its identity starts with the pod name); returns the identity. */
export async function waitLeader(pod: Pod, spec: PodSpec): Promise<string> {
  return await podEventually(pod, "the pod did not take the Lease", async () => {
    const holder = await leaseHolder(spec);
    return holder.startsWith(pod.name) ? holder : undefined;
  });
}

/** Applies manifests/example-foo.yaml in `namespace` and waits for its owned Deployment and status. */
export async function reconcileExampleFoo(namespace: string, pod: Pod): Promise<void> {
  await kubectlOk(["apply", "-n", namespace, "-f", join(REPO_ROOT, "manifests", "example-foo.yaml")]);
  const dep = await podEventually(pod, "no Deployment for the Foo", async () => {
    const r = await kubectl(["get", "deployment", "example-foo", "-n", namespace, "-o", "json"]);
    return r.code === 0 ? JSON.parse(r.stdout) : undefined;
  });
  assert.equal(dep.metadata.ownerReferences?.[0]?.kind, "Foo");
  await podEventually(pod, "no status on the Foo", async () => {
    const r = await kubectl(["get", "foo", "example-foo", "-n", namespace, "-o", "json"]);
    const foo = r.code === 0 ? JSON.parse(r.stdout) : undefined;
    return foo && foo.status?.observedGeneration === foo.metadata.generation ? true : undefined;
  });
}

/** Scrapes /metrics at the pod IP, with a metrics-reader token when the Deployment sets --metrics-secure. */
export async function scrapeMetrics(r: Rehearsal, pod: Pod): Promise<string> {
  const port = bindPort(argValue(r.spec.container.args, "metrics-bind-address"));
  assert.ok(port, "the Deployment sets --metrics-bind-address with a port");
  const url = pod.url(port, "/metrics");
  if (!metricsSecure(r.spec)) {
    const res = await scrape(url);
    assert.equal(res.status, 200, res.body);
    say(
      `metrics scraped over ${res.scheme} without credentials (the Deployment does not set --metrics-secure)`,
    );
    return res.body;
  }
  const anonymous = await scrape(url);
  assert.ok([401, 403].includes(anonymous.status), `anonymous scrape answered ${anonymous.status}`);
  const token = await metricsReaderToken(r.spec);
  const res = await scrape(url, token);
  assert.equal(res.status, 200, res.body);
  say(
    `metrics: anonymous scrape refused (${anonymous.status}); metrics-reader token scraped over ${res.scheme}`,
  );
  return res.body;
}
