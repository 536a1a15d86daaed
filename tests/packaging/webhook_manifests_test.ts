/**
 * manifests/webhook/ (the kustomize components of the Foo webhooks) against the code and the default
 * manifests: the default install is untouched, the v1beta1 patch keeps v1alpha1 exactly as crds/ has it, the
 * configurations are what the controller generates, and the names and ports line up. The rendered overlay is
 * checked against a real API server in tests/integration/webhook_manifests_test.ts.
 */
import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import {
  fooWebhookConfigurations,
  WEBHOOK_CONFIGURATION_NAME,
} from "../../lib/sample_controller/webhook_serving.ts";
import { parseFlags } from "../../lib/sample_controller/flags.ts";
import { fooConversion } from "../../lib/sample_controller/foo_webhooks.ts";
import { join } from "node:path";

type Obj = Record<string, unknown>;
const root = new URL("../../", import.meta.url);

async function load(path: string): Promise<Obj[]> {
  const docs = parseAllDocuments(await Deno.readTextFile(new URL(path, root)));
  if (!Array.isArray(docs)) return [];
  for (const doc of docs) assert.deepEqual(doc.errors, [], `${path}: ${doc.errors.join("; ")}`);
  return docs.map((d) => d.toJS() as Obj).filter((o) => o !== null);
}
// deno-lint-ignore no-explicit-any
const dig = (obj: unknown, ...path: (string | number)[]): any => path.reduce((o: any, k) => o?.[k], obj);

const [crd] = await load("crds/samplecontroller.k8s.io_foos.yaml");
const [patch] = await load("manifests/webhook/foos_v1beta1.yaml");

Deno.test("the default manifests do not include the webhook component: the drop-in is unchanged", async () => {
  const [kustomization] = await load("manifests/kustomization.yaml");
  assert.ok(!JSON.stringify(kustomization).includes("webhook"));
  assert.deepEqual(dig(crd, "spec", "conversion"), undefined);
  assert.deepEqual(dig(crd, "spec", "versions").map((v: Obj) => v.name), ["v1alpha1"]);
});

Deno.test("the v1beta1 patch repeats crds/ exactly (v1alpha1 stays the storage version) and adds v1beta1", () => {
  for (const field of ["group", "scope", "names"]) {
    assert.deepEqual(dig(patch, "spec", field), dig(crd, "spec", field), `spec.${field}`);
  }
  const [v1alpha1, v1beta1, ...rest] = dig(patch, "spec", "versions") as Obj[];
  assert.deepEqual(v1alpha1, dig(crd, "spec", "versions", 0));
  assert.equal(v1alpha1?.storage, true);
  assert.equal(v1beta1?.name, "v1beta1");
  assert.equal(v1beta1?.served, true);
  assert.equal(v1beta1?.storage, false);
  assert.deepEqual(rest, []);
  // Status is the same in both versions; only spec changed shape.
  assert.deepEqual(
    dig(v1beta1, "schema", "openAPIV3Schema", "properties", "status"),
    dig(v1alpha1, "schema", "openAPIV3Schema", "properties", "status"),
  );
});

Deno.test("the conversion webhook is the controller's: path, Service, ConversionReview v1", async () => {
  const [service] = await load("manifests/webhook/webhook_service.yaml");
  const conversion = dig(patch, "spec", "conversion");
  assert.equal(conversion.strategy, "Webhook");
  assert.deepEqual(conversion.webhook.conversionReviewVersions, ["v1"]);
  assert.deepEqual(conversion.webhook.clientConfig.service, {
    namespace: dig(service, "metadata", "namespace"),
    name: dig(service, "metadata", "name"),
    path: fooConversion.path,
    port: dig(service, "spec", "ports", 0, "port"),
  });
});

Deno.test("webhook_configurations.yaml is what the controller generates for the in-cluster Service", async () => {
  const [service] = await load("manifests/webhook/webhook_service.yaml");
  const expected = fooWebhookConfigurations(
    { service: { namespace: dig(service, "metadata", "namespace"), name: dig(service, "metadata", "name") } },
    "kubeloop-system",
  );
  assert.deepEqual(await load("manifests/webhook/webhook_configurations.yaml"), [
    expected.validating,
    expected.mutating,
  ]);
});

Deno.test("ports, volume and flags line up: Service → container port → --webhook-bind-address; the mount is readable", async () => {
  const ops = (await load("manifests/webhook/deployment_patch.yaml"))[0] as unknown as {
    path: string;
    value: unknown;
  }[];
  const value = (suffix: string) => ops.filter((o) => o.path.endsWith(suffix)).map((o) => o.value);
  const [service] = await load("manifests/webhook/webhook_service.yaml");
  const [port] = value("/ports/-") as { name: string; containerPort: number }[];
  assert.equal(dig(service, "spec", "ports", 0, "targetPort"), port?.name);
  const args = value("/args/-") as string[];
  assert.ok(args.includes(`--webhook-bind-address=:${port?.containerPort}`), args.join(" "));
  const [mount] = value("/volumeMounts/-") as { name: string; mountPath: string }[];
  assert.ok(args.includes(`--webhook-cert-path=${mount?.mountPath}`));
  // The compiled binary may read only the service-account directory and /var/run/secrets/kubeloop.
  const compile = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))).tasks.compile as string;
  const readable = /--allow-read=(\S+)/.exec(compile)?.[1]?.split(",") ?? [];
  assert.ok(
    readable.some((dir) => mount!.mountPath.startsWith(`${dir}/`)),
    `${mount?.mountPath} in ${readable}`,
  );
  const [volume] = value("/volumes/-") as { name: string; secret: { secretName: string } }[];
  assert.equal(volume?.name, mount?.name);
  const certificate = (await load("manifests/webhook/cert-manager/certificate.yaml")).find((o) =>
    o.kind === "Certificate"
  );
  assert.equal(dig(certificate, "spec", "secretName"), volume?.secret.secretName);
  const svcName = `${dig(service, "metadata", "name")}.${dig(service, "metadata", "namespace")}.svc`;
  assert.ok((dig(certificate, "spec", "dnsNames") as string[]).includes(svcName));
  const [policy] = (await load("manifests/webhook/network_policy_patch.yaml"))[0] as unknown as {
    value: Obj;
  }[];
  assert.equal(dig(policy?.value, "ports", 0, "port"), port?.containerPort);
});

Deno.test("`deno task gen:crds:v1beta1` writes exactly the committed lib/sample_controller/foo_v1beta1.ts", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const task = (config.tasks["gen:crds:v1beta1"].match(/"[^"]*"|\S+/g) ?? []).map((a: string) =>
    a.replace(/^"(.*)"$/, "$1")
  );
  const dir = await Deno.makeTempDir({ prefix: "kubeloop-gen-v1beta1-" });
  try {
    const { exclude: _, ...fmt } = config.fmt;
    await Deno.writeTextFile(join(dir, "deno.json"), JSON.stringify({ fmt }));
    const output = join(dir, "foo_v1beta1.ts");
    const args = task.slice(1).map((
      a: string,
    ) => (a === "lib/sample_controller/foo_v1beta1.ts" ? output : a));
    const run = await new Deno.Command(Deno.execPath(), { args, cwd: root, stdout: "null", stderr: "piped" })
      .output();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    assert.equal(
      await Deno.readTextFile(output),
      await Deno.readTextFile(new URL("lib/sample_controller/foo_v1beta1.ts", root)),
      "run `deno task gen:crds:v1beta1` after changing manifests/webhook/foos_v1beta1.yaml",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("self-managed component: the flag names the Secret its Role allows, and the targets are the controller's", async () => {
  const ops = (await load("manifests/webhook/self-managed/deployment_patch.yaml"))[0] as unknown as {
    op: string;
    path: string;
    value?: string;
  }[];
  const flag = ops.find((o) => o.op === "replace" && o.path.endsWith("/args/6"))?.value ?? "";
  const parsed = parseFlags(["--webhook-bind-address=:9443", flag]);
  assert.equal(parsed.kind, "run");
  const secret = parsed.kind === "run" ? parsed.flags.webhookCertSecret : undefined;
  assert.equal(secret, "kubeloop-sample-controller-webhook-certs");
  // What it replaces and removes is what the webhook component adds at those places.
  const base = (await load("manifests/webhook/deployment_patch.yaml"))[0] as unknown as {
    path: string;
    value: unknown;
  }[];
  const tested = ops.filter((o) => o.op === "test").map((o) => o.value);
  assert.ok(base.some((o) => o.value === tested[0]), "the --webhook-cert-path argument");
  assert.deepEqual(
    base.filter((o) => /\/(volumes|volumeMounts)\/-$/.test(o.path)).map((o) => (o.value as Obj).name),
    tested.slice(1),
  );
  const rbac = await load("manifests/webhook/self-managed/rbac.yaml");
  const role = rbac.find((o) => o.kind === "Role")!;
  const rules = dig(role, "rules") as { resources: string[]; resourceNames?: string[]; verbs: string[] }[];
  assert.deepEqual(rules, [
    { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
    {
      apiGroups: [""],
      resources: ["secrets"],
      resourceNames: [secret],
      verbs: ["get", "list", "watch", "update"],
    },
  ]);
  const cluster = rbac.find((o) => o.kind === "ClusterRole")!;
  assert.deepEqual(dig(cluster, "rules"), [
    {
      apiGroups: ["admissionregistration.k8s.io"],
      resources: ["validatingwebhookconfigurations", "mutatingwebhookconfigurations"],
      resourceNames: [WEBHOOK_CONFIGURATION_NAME],
      verbs: ["get", "patch"],
    },
    {
      apiGroups: ["apiextensions.k8s.io"],
      resources: ["customresourcedefinitions"],
      resourceNames: [fooConversion.crd],
      verbs: ["get", "patch"],
    },
  ]);
  for (const binding of rbac.filter((o) => String(o.kind).endsWith("Binding"))) {
    assert.deepEqual(dig(binding, "subjects"), [
      { kind: "ServiceAccount", name: "kubeloop-sample-controller", namespace: "kubeloop-system" },
    ]);
  }
});
