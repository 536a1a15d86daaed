import assert from "node:assert/strict";
import { parseAllDocuments, stringify } from "yaml";
import { DEFAULT_IN_CLUSTER_DIR } from "../../lib/config/mod.ts";
import { divergences } from "../e2e/pod/divergences.ts";
import { type PodSources, podSpecFrom, readPodSources, standInArgv } from "../e2e/pod/pod_spec.ts";

const sources = await readPodSources();

// deno-lint-ignore no-explicit-any
type Json = any;

/** The sources with the controller Deployment edited by `edit` (parsed, changed, written back). */
function withDeployment(edit: (deployment: Json) => void, from: PodSources = sources): PodSources {
  return {
    ...from,
    manifests: from.manifests.map(({ name, text }) => {
      const docs = parseAllDocuments(text).map((d) => d.toJS() as Json);
      const dep = docs.find((o) => o?.kind === "Deployment");
      if (!dep) return { name, text };
      edit(dep);
      return { name, text: docs.map((o) => stringify(o)).join("---\n") };
    }),
  };
}

function replaced(text: string, from: RegExp, to: string): string {
  assert.match(text, from, `the fixture still contains ${from}`);
  return text.replace(from, to);
}

const container = (dep: Json) => dep.spec.template.spec.containers[0];

Deno.test("deno.json, the Dockerfile and the Deployment agree on user, paths, env, ports and flags", () => {
  assert.deepEqual(divergences(podSpecFrom(sources)), []);
});

Deno.test("the rehearsal's stand-in runs the entry module with exactly the compile task's flags and the Deployment's args", () => {
  const spec = podSpecFrom(sources);
  const argv = standInArgv(spec, ["--extra"]);
  assert.equal(argv[0], spec.image.entrypoint[0]);
  const program = argv.indexOf(`${spec.image.buildWorkdir}/${spec.compile.entry}`);
  assert.deepEqual(argv.slice(1, program), ["run", "--cached-only", "--no-prompt", ...spec.compile.flags]);
  assert.deepEqual(argv.slice(program + 1), [...spec.container.args, "--extra"]);
  const task = (JSON.parse(sources.denoJson) as { tasks: Record<string, string> }).tasks["compile"]!;
  for (const flag of spec.compile.flags) assert.ok(task.split(/\s+/).includes(flag), flag);
});

Deno.test("another user in the Dockerfile or the Deployment is a divergence", () => {
  const dockerfile = replaced(sources.dockerfile, /^USER 65532:65532$/m, "USER 1000:1000");
  assert.match(
    divergences(podSpecFrom({ ...sources, dockerfile })).join("\n"),
    /runs as UID 65532.*USER is 1000/,
  );
  const spec = podSpecFrom(withDeployment((d) => container(d).securityContext.runAsUser = 1001));
  assert.match(divergences(spec).join("\n"), /runs as UID 1001, the Dockerfile's USER is 65532/);
});

Deno.test("a Deployment env var the binary may not read is a divergence", () => {
  const spec = podSpecFrom(
    withDeployment((d) => container(d).env = [{ name: "KUBELOOP_EXTRA", value: "x" }]),
  );
  assert.match(divergences(spec).join("\n"), /may not read KUBELOOP_EXTRA/);
});

Deno.test("a compile task that may not read the service-account directory is a divergence", () => {
  const denoJson = replaced(
    sources.denoJson,
    new RegExp(`--allow-read=${DEFAULT_IN_CLUSTER_DIR},`),
    "--allow-read=/etc,",
  );
  assert.match(
    divergences(podSpecFrom({ ...sources, denoJson })).join("\n"),
    /does not cover the service-account/,
  );
});

Deno.test("DENO_DIR outside a writable volume of the read-only root is a divergence", () => {
  const dockerfile = replaced(sources.dockerfile, /^ENV DENO_DIR=\S+$/m, "ENV DENO_DIR=/var/cache/deno");
  assert.match(
    divergences(podSpecFrom({ ...sources, dockerfile })).join("\n"),
    /DENO_DIR=\/var\/cache\/deno is on the read-only root/,
  );
  const noTmp = withDeployment((d) => container(d).volumeMounts = []);
  assert.match(divergences(podSpecFrom(noTmp)).join("\n"), /DENO_DIR=\/tmp\/deno is on the read-only root/);
});

Deno.test("binary paths that do not line up, a command overriding the ENTRYPOINT, or an uncopied entry module are divergences", () => {
  const entry = replaced(sources.dockerfile, /^ENTRYPOINT .*$/m, 'ENTRYPOINT ["/usr/bin/controller"]');
  assert.match(
    divergences(podSpecFrom({ ...sources, dockerfile: entry })).join("\n"),
    /ENTRYPOINT runs "\/usr\/bin\/controller"/,
  );
  const denoJson = sources.denoJson.replace("--output dist/kubeloop-sample-controller", "--output out/ctl");
  assert.match(
    divergences(podSpecFrom({ ...sources, denoJson })).join("\n"),
    /compile task writes "\/src\/out\/ctl"/,
  );
  const command = withDeployment((d) => container(d).command = ["/bin/sh"]);
  assert.match(divergences(podSpecFrom(command)).join("\n"), /command replaces the image's ENTRYPOINT/);
  const noMain = replaced(sources.dockerfile, /^COPY main\.ts \.\/$/m, "");
  assert.match(
    divergences(podSpecFrom({ ...sources, dockerfile: noMain })).join("\n"),
    /does not copy main\.ts/,
  );
});

Deno.test("probes on another port than --health-probe-bind-address, or another base image, are divergences", () => {
  const probes = withDeployment((d) => {
    container(d).args = container(d).args.map((a: string) =>
      a.startsWith("--health-probe-bind-address") ? "--health-probe-bind-address=:9440" : a
    );
  });
  assert.match(
    divergences(podSpecFrom(probes)).join("\n"),
    /probe targets port 8081, --health-probe-bind-address serves 9440/,
  );
  const dockerfile = replaced(
    sources.dockerfile,
    /^FROM gcr\.io\/distroless\/\S+/m,
    "FROM gcr.io/distroless/static-debian12",
  );
  assert.match(
    divergences(podSpecFrom({ ...sources, dockerfile })).join("\n"),
    /rebuilds gcr\.io\/distroless\/cc-debian12/,
  );
});

Deno.test("digest pins, extra objects, annotations and reordered args are not divergences", () => {
  const dockerfile = sources.dockerfile.replace(
    /^FROM gcr\.io\/distroless\/cc-debian12:nonroot$/m,
    `FROM gcr.io/distroless/cc-debian12:nonroot@sha256:${"ab".repeat(32)}`,
  );
  const edited = withDeployment((d) => {
    container(d).args = [...container(d).args.reverse()];
    d.metadata.annotations = { "example.com/x": "y" };
  }, { ...sources, dockerfile });
  const extra = {
    name: "service.yaml",
    text: "apiVersion: v1\nkind: Service\nmetadata: {name: metrics, namespace: kubeloop-system}\n" +
      "spec: {ports: [{port: 8443}]}\n---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n" +
      "metadata: {name: metrics, namespace: kubeloop-system}\nspec: {podSelector: {}}\n",
  };
  const spec = podSpecFrom({ ...edited, manifests: [...edited.manifests, extra] });
  assert.deepEqual(divergences(spec), []);
});

Deno.test("--metrics-secure needs a ClusterRole granting get on /metrics for the rehearsal's scraper", () => {
  assert.equal(podSpecFrom(sources).metricsReaderRole, "kubeloop-sample-controller-metrics-reader");
  const withoutRole = {
    ...sources,
    manifests: sources.manifests.filter((m) => m.name !== "metrics_rbac.yaml"),
  };
  assert.match(
    divergences(podSpecFrom(withoutRole)).join("\n"),
    /--metrics-secure is set, but no ClusterRole/,
  );
});

Deno.test("a --metrics-cert-path the binary may not read is a divergence; the documented mount is readable", () => {
  const at = (path: string) =>
    podSpecFrom(
      withDeployment((d) => container(d).args = [...container(d).args ?? [], `--metrics-cert-path=${path}`]),
    );
  assert.match(divergences(at("/etc/certs")).join("\n"), /does not cover --metrics-cert-path=\/etc\/certs/);
  assert.deepEqual(divergences(at("/var/run/secrets/kubeloop/metrics-certs")), []);
});
