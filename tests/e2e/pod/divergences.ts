/** Where deno.json, the Dockerfile and the Deployment disagree (tests/packaging/pod_spec_test.ts). */
import { DEFAULT_IN_CLUSTER_DIR } from "../../../lib/config/mod.ts";
import { argEnabled, argValue, bindPort, type PodSpec } from "./pod_spec.ts";

function covers(paths: readonly string[] | "all", path: string): boolean {
  return paths === "all" || paths.some((p) => path === p || path.startsWith(`${p.replace(/\/+$/, "")}/`));
}

/** Where the sources disagree with each other, as sentences; empty when they are consistent. */
export function divergences(spec: PodSpec): string[] {
  const { image, compile, container } = spec;
  const out: string[] = [];
  if (!/^gcr\.io\/distroless\/cc-debian12(:nonroot)?(@sha256:[0-9a-f]{64})?$/.test(image.base)) {
    out.push(
      `the runtime stage is "${image.base}", but the rehearsal rebuilds gcr.io/distroless/cc-debian12:nonroot`,
    );
  }
  if (container.uid !== undefined && container.uid !== image.uid) {
    out.push(`the Deployment runs as UID ${container.uid}, the Dockerfile's USER is ${image.uid}`);
  }
  if (container.gid !== undefined && container.gid !== image.gid) {
    out.push(`the Deployment runs as GID ${container.gid}, the Dockerfile's USER group is ${image.gid}`);
  }
  if (container.runAsNonRoot && (container.uid ?? image.uid) === 0) out.push("runAsNonRoot with UID 0");
  if (container.command) out.push("the Deployment's command replaces the image's ENTRYPOINT");
  if (image.entrypoint[0] !== image.binaryDestination) {
    out.push(
      `ENTRYPOINT runs "${image.entrypoint[0]}", but the binary is copied to "${image.binaryDestination}"`,
    );
  }
  const built = `${image.buildWorkdir.replace(/\/+$/, "")}/${compile.output}`;
  if (image.binarySource !== built) {
    out.push(`the runtime stage copies "${image.binarySource}", the compile task writes "${built}"`);
  }
  for (const needed of [compile.entry, "deno.json", "deno.lock"]) {
    if (!image.buildSources.some((s) => needed === s || needed.startsWith(`${s}/`))) {
      out.push(`the build stage does not copy ${needed}`);
    }
  }
  if (container.automountToken && !covers(compile.readPaths, `${DEFAULT_IN_CLUSTER_DIR}/token`)) {
    out.push(
      `the compile task's --allow-read does not cover the service-account directory ${DEFAULT_IN_CLUSTER_DIR}`,
    );
  }
  const certPath = argValue(container.args, "metrics-cert-path");
  if (certPath !== undefined && !covers(compile.readPaths, `${certPath.replace(/\/+$/, "")}/tls.crt`)) {
    out.push(`the compile task's --allow-read does not cover --metrics-cert-path=${certPath}`);
  }
  const needEnv = ["KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", ...container.env.map((e) => e.name)];
  for (const name of needEnv) {
    if (compile.envNames !== "all" && !compile.envNames.includes(name)) {
      out.push(`the binary may not read ${name} (not in the compile task's --allow-env), which the pod sets`);
    }
  }
  const writable = container.mounts.filter((m) => !m.readOnly).map((m) => m.path);
  const denoDir = image.env["DENO_DIR"];
  if (!denoDir) out.push("the image sets no DENO_DIR (the runtime needs one, or HOME)");
  else if (container.readOnlyRoot && !covers(writable, denoDir)) {
    out.push(`DENO_DIR=${denoDir} is on the read-only root: no writable volume is mounted over it`);
  }
  const health = bindPort(argValue(container.args, "health-probe-bind-address"));
  for (const probe of container.probes) {
    if (probe.port !== health) {
      out.push(
        `the ${probe.kind} probe targets port ${probe.port}, --health-probe-bind-address serves ${health}`,
      );
    }
  }
  if (argEnabled(container.args, "metrics-secure") && !spec.metricsReaderRole) {
    out.push("--metrics-secure is set, but no ClusterRole in manifests/ grants get on /metrics to scrapers");
  }
  const metrics = bindPort(argValue(container.args, "metrics-bind-address"));
  if (metrics !== undefined && !Object.values(container.ports).includes(metrics)) {
    out.push(`--metrics-bind-address serves port ${metrics}, which the container does not declare`);
  }
  return out;
}
